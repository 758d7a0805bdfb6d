use super::*;

#[test]
fn only_the_configs_own_bash_adapter_hooks_get_a_project_mount() {
    let settings = AdapterSettings::from_json(&serde_json::json!({"command": "true", "mode": "sandbox", "project_dir": "/home"})).unwrap();
    assert_eq!(project_mount(&PluginRef::Builtin("bash-adapter".into()), Some(&settings)), Some(PathBuf::from("/home")));
    let bundle = PluginRef::Bundle { bundle: "acme/sh".parse().unwrap(), file: "builtin:bash-adapter".into() };
    assert_eq!(project_mount(&bundle, Some(&settings)), None, "a bundle's settings never pick a directory to read");
    assert_eq!(project_mount(&PluginRef::Path("x.wasm".into()), None), None);
}

#[test]
fn a_host_can_be_shared_across_threads() {
    fn shared<T: Send + Sync + 'static>() {}
    shared::<Host>();
    shared::<Engine>();
}
