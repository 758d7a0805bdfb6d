//! Everruns' `user_hooks` capability (<https://docs.everruns.com/capabilities/user-hooks/>):
//! hookhost's canonical events are its events, by the same names; its configs are its
//! capabilities JSON, and its shell hooks get hookhost's own envelope.

use super::{Naming, Payload, Profile, Runtime};

pub(super) const PROFILE: Profile = Profile {
    name: "everruns",
    title: "Everruns",
    reference: "https://docs.everruns.com/capabilities/user-hooks/",
    events: &[],
    naming: Naming::Canonical,
    config_dir: None,
    config_files: &[],
    config_syntax: Some(Runtime::Everruns),
    dialect: Runtime::Everruns,
    payload: Payload::Envelope,
    // It embeds hookhost as a library and reads the outcome itself (docs/EMBEDDING.md).
    answer: None,
    project_hooks: None,
    install: None,
};
