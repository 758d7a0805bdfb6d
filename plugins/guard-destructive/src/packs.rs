//! The opt-in packs: what destroys data held outside the project — databases, containers,
//! clusters, cloud accounts, infrastructure state, remote storage and backups, forge
//! repositories, secrets. Each is off unless `packs` names it (or says `"all"`).
//!
//! Read from each tool's reference: psql(1), mysql(1), sqlite3(1), redis-cli and the Redis
//! command reference, mongosh; docker(1) / podman(1); kubectl(1), helm(1); the AWS, Google Cloud
//! and Azure CLI references; terraform(1), OpenTofu, Pulumi; rclone(1), restic(1), borg(1),
//! rsync(1); gh(1), glab(1); vault(1), doppler(1), op(1).

use crate::Finding;

/// The opt-in packs: every pack but `core`, in the order `packs` and `check -v` name them.
pub const OPT_IN: &[&str] = crate::PACKS.split_at(1).1.split_at(crate::PACKS.len() - 2).0;

rules! {
    SQL_DROP = "database.drop", Block,
        "SQL DROP of a database, schema, table, view, index or role",
        "rename it, or take a dump (`pg_dump`, `mysqldump`) and drop it yourself";
    SQL_TRUNCATE = "database.truncate", Block,
        "SQL TRUNCATE empties a table at once",
        "`DELETE … WHERE` the rows you mean, inside a transaction";
    SQL_DELETE_ALL = "database.delete-without-where", Block,
        "SQL DELETE with no WHERE removes every row",
        "add the WHERE clause that names the rows";
    SQL_UPDATE_ALL = "database.update-without-where", Ask,
        "SQL UPDATE with no WHERE rewrites every row",
        "add the WHERE clause that names the rows";
    REDIS_FLUSH = "database.redis-flush", Block,
        "redis-cli FLUSHALL / FLUSHDB deletes every key",
        "delete the keys you mean (`DEL`, `UNLINK`, or `SCAN` + `UNLINK` by pattern)";
    MONGO_DROP = "database.mongo-drop", Block,
        "mongosh dropDatabase() / drop() / deleteMany({}) deletes a database, a collection or every document",
        "`mongodump` first, and delete with a filter";
    DOCKER_PRUNE = "containers.prune", Block,
        "docker/podman system prune -a, volume prune or rm of volumes deletes images, containers and the data in volumes",
        "remove the containers or images you mean by name";
    DOCKER_RM_ALL = "containers.rm-all", Ask,
        "docker/podman rm -f / rmi -f of every container or image (`$(docker ps -aq)`)",
        "name the containers or images to remove";
    KUBE_DELETE_WIDE = "kubernetes.delete-wide", Block,
        "kubectl delete of a namespace, or of everything (`--all`, `-A`, `--all-namespaces`)",
        "delete the named resources, in one namespace; `kubectl delete --dry-run=server` first";
    KUBE_DELETE = "kubernetes.delete", Ask,
        "kubectl delete of named resources",
        "`kubectl delete --dry-run=server` first";
    KUBE_DRAIN = "kubernetes.drain", Ask,
        "kubectl drain evicts every pod from a node",
        "`kubectl cordon` first, and drain during a planned window";
    HELM_UNINSTALL = "kubernetes.helm-uninstall", Ask,
        "helm uninstall removes a release and its resources",
        "`helm uninstall --dry-run` first, or `--keep-history`";
    CLOUD_DELETE = "cloud.delete", Block,
        "a cloud CLI deleting storage, instances, databases or whole resource groups (aws s3 rb --force / rm --recursive, ec2 terminate-instances, rds delete-db-*, gcloud … delete, az group delete)",
        "delete it in the console, where it asks, or snapshot it first";
    TF_DESTROY = "infrastructure.destroy", Block,
        "terraform/tofu/pulumi destroy (or apply -destroy, up --destroy) tears down the infrastructure",
        "`terraform plan -destroy` to see what would go, then run it yourself";
    TF_STATE_RM = "infrastructure.state-rm", Ask,
        "terraform/tofu state rm (or pulumi state delete) forgets resources; the next apply may recreate or orphan them",
        "`terraform state list` and `state mv` where you meant to move it";
    STORAGE_PURGE = "storage.purge", Block,
        "rclone purge / delete / sync with deletion, or rsync --delete, removes files at the destination",
        "`--dry-run` first; `rclone copy` does not delete";
    BACKUP_DELETE = "backup.delete", Block,
        "restic forget / prune, borg delete / prune deletes backups",
        "`--dry-run` first, and keep the policy (`--keep-*`) you mean";
    PLATFORM_DELETE = "platform.delete", Block,
        "gh / glab repo delete, release delete or secret delete removes them from the forge",
        "archive the repository (`gh repo archive`) instead";
    SECRETS_DELETE = "secrets.delete", Block,
        "vault kv delete / destroy / metadata delete, doppler secrets delete, op item delete removes secrets",
        "disable or rotate the secret; vault kv delete keeps versions, destroy does not";
}

/// The opt-in packs' findings for `prog args` (stdin: a here-document fed to it), for the
/// packs enabled in `enabled` (a bit per entry of [`OPT_IN`]).
pub(crate) fn check(enabled: u16, prog: &str, args: &[String], stdin: Option<&str>) -> Option<Finding> {
    let on = |pack: &str| OPT_IN.iter().position(|p| *p == pack).is_some_and(|i| enabled & (1 << i) != 0);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    // The tool's own options before its subcommand (`kubectl -n app delete`, `terraform
    // -chdir=x destroy`) are set apart; the rules read from the subcommand on.
    let with_value: &[&str] = match prog {
        "kubectl" | "oc" | "helm" => &["-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server", "--kube-context"],
        "aws" => &["--profile", "--region", "--output", "--endpoint-url"],
        "gcloud" | "az" => &["--project", "--account", "--subscription"],
        "docker" | "podman" => &["-H", "--host", "--context", "--config", "-c"],
        "gh" | "glab" => &["-R", "--repo"],
        _ => &[],
    };
    let subcommands = !matches!(prog, "psql" | "mysql" | "mariadb" | "sqlite3" | "duckdb" | "clickhouse-client" | "cockroach" | "redis-cli" | "mongosh" | "mongo" | "rsync");
    let mut start = 0;
    while subcommands && start < all.len() && all[start].starts_with('-') {
        start += if with_value.contains(&all[start]) { 2 } else { 1 };
    }
    let words: Vec<&str> = all[start.min(all.len())..].to_vec();
    match prog {
        "psql" | "mysql" | "mariadb" | "sqlite3" | "duckdb" | "clickhouse-client" | "cockroach" if on("database") => {
            let sql: Vec<&str> = sql_of(prog, &words).into_iter().chain(stdin).collect();
            sql.iter().find_map(|s| sql_finding(s))
        }
        "redis-cli" if on("database") => words
            .iter()
            .any(|w| w.eq_ignore_ascii_case("flushall") || w.eq_ignore_ascii_case("flushdb"))
            .then(|| REDIS_FLUSH.finding_for("redis-cli FLUSHALL / FLUSHDB".into())),
        "mongosh" | "mongo" if on("database") => {
            let code: Vec<&str> = words.windows(2).filter(|w| w[0] == "--eval").map(|w| w[1]).chain(stdin).collect();
            code.iter()
                .any(|c| c.contains("dropDatabase(") || c.contains(".drop()") || c.replace(' ', "").contains("deleteMany({})"))
                .then(|| MONGO_DROP.finding_for("mongosh drops a database or collection, or deletes every document".into()))
        }
        "docker" | "podman" | "nerdctl" if on("containers") => containers(prog, &words),
        "kubectl" | "oc" if on("kubernetes") => kubectl(prog, &words),
        "helm" if on("kubernetes") => (matches!(words.first(), Some(&"uninstall" | &"delete")) && !words.contains(&"--dry-run"))
            .then(|| HELM_UNINSTALL.finding_for(format!("helm {}", words.join(" ")))),
        "aws" | "gcloud" | "az" if on("cloud") => cloud(prog, &words),
        "terraform" | "tofu" | "terragrunt" | "pulumi" if on("infrastructure") => infrastructure(prog, &words),
        "rclone" | "rsync" if on("storage") => storage(prog, &words),
        "restic" | "borg" if on("backup") => backup(prog, &words),
        "gh" | "glab" if on("platform") => {
            let deletes = matches!(words.as_slice(), ["repo" | "release" | "secret" | "variable", "delete", ..]);
            deletes.then(|| PLATFORM_DELETE.finding_for(format!("{prog} {}", words.join(" "))))
        }
        "vault" | "doppler" | "op" if on("secrets") => {
            let deletes = match prog {
                "vault" => matches!(words.as_slice(), ["kv", "delete" | "destroy", ..] | ["kv", "metadata", "delete", ..] | ["delete", ..] | ["secrets", "disable", ..]),
                "doppler" => matches!(words.as_slice(), ["secrets" | "projects" | "environments" | "configs", "delete", ..]),
                _ => matches!(words.as_slice(), ["item" | "vault" | "document", "delete", ..]),
            };
            deletes.then(|| SECRETS_DELETE.finding_for(format!("{prog} {}", words.join(" "))))
        }
        _ => None,
    }
}

/// The SQL a database client is given on its command line.
fn sql_of<'a>(prog: &str, words: &[&'a str]) -> Vec<&'a str> {
    let flags: &[&str] = match prog {
        "psql" | "cockroach" => &["-c", "--command", "-e"],
        "mysql" | "mariadb" => &["-e", "--execute"],
        "clickhouse-client" => &["-q", "--query"],
        _ => &[],
    };
    let mut out: Vec<&str> = words.windows(2).filter(|w| flags.contains(&w[0])).map(|w| w[1]).collect();
    out.extend(words.iter().filter_map(|w| w.strip_prefix("--command=").or_else(|| w.strip_prefix("--execute=")).or_else(|| w.strip_prefix("--query="))));
    // sqlite3 / duckdb DB "SQL": the words after the database file.
    if matches!(prog, "sqlite3" | "duckdb") {
        out.extend(words.iter().filter(|w| !w.starts_with('-')).skip(1));
    }
    out
}

/// What a SQL text does that the database pack stops.
fn sql_finding(sql: &str) -> Option<Finding> {
    let mut ask = None;
    for statement in sql.split(';') {
        let upper = statement.to_ascii_uppercase();
        let tokens: Vec<&str> = upper.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',').filter(|t| !t.is_empty()).collect();
        let first = tokens.iter().position(|t| !t.starts_with("--")).map(|i| &tokens[i..]).unwrap_or(&[]);
        let short = || clip(statement.trim());
        match first {
            ["DROP", what, ..] if matches!(*what, "DATABASE" | "SCHEMA" | "TABLE" | "VIEW" | "MATERIALIZED" | "INDEX" | "ROLE" | "USER" | "OWNED" | "COLLECTION" | "KEYSPACE") => {
                return Some(SQL_DROP.finding_for(format!("SQL `{}`", short())));
            }
            ["TRUNCATE", ..] => return Some(SQL_TRUNCATE.finding_for(format!("SQL `{}`", short()))),
            ["DELETE", ..] if !tokens.contains(&"WHERE") => return Some(SQL_DELETE_ALL.finding_for(format!("SQL `{}`", short()))),
            ["UPDATE", ..] if !tokens.contains(&"WHERE") => {
                ask.get_or_insert(SQL_UPDATE_ALL.finding_for(format!("SQL `{}`", short())));
            }
            _ => {}
        }
    }
    ask
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn containers(prog: &str, w: &[&str]) -> Option<Finding> {
    let has = |f: &str| w.contains(&f);
    let all = has("-a") || has("--all") || w.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('a') && a.len() <= 4);
    let line = format!("{prog} {}", w.join(" "));
    match w {
        ["system", "prune", ..] if all || has("--volumes") => Some(DOCKER_PRUNE.finding_for(line)),
        ["volume", "prune" | "rm", ..] | ["volume", "remove", ..] => Some(DOCKER_PRUNE.finding_for(line)),
        ["rm" | "rmi", ..] | ["container" | "image", "rm" | "prune", ..] if w.iter().any(|a| a.starts_with("$(") || *a == "--all") => Some(DOCKER_RM_ALL.finding_for(line)),
        ["compose", ..] if has("down") && (has("-v") || has("--volumes")) => Some(DOCKER_PRUNE.finding_for(line)),
        _ => None,
    }
}

fn kubectl(prog: &str, w: &[&str]) -> Option<Finding> {
    let line = format!("{prog} {}", w.join(" "));
    let dry = w.iter().any(|a| a.starts_with("--dry-run"));
    match w.first() {
        Some(&"delete") if !dry => {
            let wide = w.iter().any(|a| matches!(*a, "--all" | "-A" | "--all-namespaces")) || w.get(1).is_some_and(|k| matches!(*k, "namespace" | "namespaces" | "ns" | "node" | "nodes" | "pv" | "persistentvolume" | "persistentvolumes" | "crd" | "customresourcedefinition") || k.starts_with("namespace/") || k.starts_with("ns/"));
            Some(if wide { KUBE_DELETE_WIDE.finding_for(line) } else { KUBE_DELETE.finding_for(line) })
        }
        Some(&"drain") if !dry => Some(KUBE_DRAIN.finding_for(line)),
        _ => None,
    }
}

fn cloud(prog: &str, w: &[&str]) -> Option<Finding> {
    let has = |f: &str| w.contains(&f);
    let deletes = match prog {
        "aws" => match w {
            ["s3", "rb", ..] => has("--force"),
            ["s3", "rm", ..] => has("--recursive"),
            ["s3api", "delete-bucket", ..] => true,
            [_, op, ..] => op.starts_with("delete-") && !has("--dry-run") || *op == "terminate-instances",
            _ => false,
        },
        // gcloud GROUP… delete NAME; gsutil-style `storage rm -r`.
        "gcloud" => w.iter().take(4).any(|a| *a == "delete") || (w.first() == Some(&"storage") && w.get(1) == Some(&"rm") && (has("-r") || has("--recursive"))),
        _ => w.iter().take(4).any(|a| *a == "delete" || *a == "purge"),
    };
    deletes.then(|| CLOUD_DELETE.finding_for(format!("{prog} {}", w.join(" "))))
}

fn infrastructure(prog: &str, w: &[&str]) -> Option<Finding> {
    let has = |f: &str| w.contains(&f);
    let line = format!("{prog} {}", w.join(" "));
    match (prog, w) {
        (_, ["destroy", ..]) | ("terragrunt", ["run-all" | "run", "destroy", ..]) => Some(TF_DESTROY.finding_for(line)),
        ("terraform" | "tofu" | "terragrunt", ["apply", ..]) if has("-destroy") || has("--destroy") => Some(TF_DESTROY.finding_for(line)),
        ("pulumi", ["up", ..]) if has("--destroy") => Some(TF_DESTROY.finding_for(line)),
        ("terraform" | "tofu" | "terragrunt", ["state", "rm", ..]) | ("pulumi", ["state", "delete", ..]) => Some(TF_STATE_RM.finding_for(line)),
        ("pulumi", ["stack", "rm", ..]) => Some(TF_DESTROY.finding_for(line)),
        _ => None,
    }
}

fn storage(prog: &str, w: &[&str]) -> Option<Finding> {
    let dry = w.iter().any(|a| matches!(*a, "--dry-run" | "-n" | "--interactive" | "-i"));
    let deletes = match prog {
        "rclone" => matches!(w.first(), Some(&"purge" | &"delete" | &"deletefile" | &"rmdirs" | &"cleanup")) || (w.first() == Some(&"sync") && !w.contains(&"--no-delete")),
        _ => w.iter().any(|a| a.starts_with("--delete") || *a == "--remove-source-files"),
    };
    (deletes && !dry).then(|| STORAGE_PURGE.finding_for(format!("{prog} {}", w.join(" "))))
}

fn backup(prog: &str, w: &[&str]) -> Option<Finding> {
    let dry = w.iter().any(|a| matches!(*a, "--dry-run" | "-n"));
    let deletes = match prog {
        "restic" => w.iter().any(|a| matches!(*a, "forget" | "prune")),
        _ => w.iter().any(|a| matches!(*a, "delete" | "prune" | "compact")),
    };
    (deletes && !dry).then(|| BACKUP_DELETE.finding_for(format!("{prog} {}", w.join(" "))))
}

/// `packs` as a bit set of [`OPT_IN`], or the unknown name.
pub(crate) fn enabled(packs: &[String]) -> Result<u16, String> {
    let mut bits = 0u16;
    for p in packs {
        match p.as_str() {
            "all" => bits |= (1 << OPT_IN.len()) - 1,
            "core" | "taint" => {}
            other => match OPT_IN.iter().position(|q| *q == other) {
                Some(i) => bits |= 1 << i,
                None => return Err(other.to_string()),
            },
        }
    }
    Ok(bits)
}

/// The programs the opt-in packs act on (the guard's fast path must see them).
pub(crate) const PROGRAMS: &[&str] = &[
    "psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse", "clickhouse-client", "cockroach", "redis-cli", "mongo", "mongosh", "docker", "podman", "nerdctl", "kubectl", "oc", "helm",
    "aws", "gcloud", "az", "terraform", "tofu", "terragrunt", "pulumi", "rclone", "rsync", "restic", "borg", "gh", "glab", "vault", "doppler", "op",
];

#[cfg(test)]
mod tests {
    /// Every program `check` has an arm for is in [`super::PROGRAMS`] (the quick scan that
    /// decides whether a line can concern a pack at all, and the names an unparsable line is
    /// judged by): read from `check`'s own `match prog` arms, so a program added to one and not
    /// the other fails here (`mongosh` and `clickhouse-client` once were).
    #[test]
    fn every_program_checked_is_one_the_scan_looks_for() {
        let source = include_str!("packs.rs");
        let body = &source[source.find("pub(crate) fn check(").unwrap()..];
        let arms = &body[body.find("    match prog {").unwrap()..];
        let arms = &arms[..arms.find("\n    }\n").unwrap()];
        let mut named = Vec::new();
        for line in arms.lines().map(str::trim).filter(|l| l.starts_with('"') && l.contains(" if on(")) {
            let names = &line[..line.find(" if on(").unwrap()];
            named.extend(names.split(" | ").map(|n| n.trim_matches('"').to_string()));
        }
        assert!(named.len() >= 30, "read {} programs from check's arms: {named:?}", named.len());
        let missing: Vec<&String> = named.iter().filter(|n| !super::PROGRAMS.contains(&n.as_str())).collect();
        assert!(missing.is_empty(), "check() has arms for {missing:?}, which PROGRAMS does not list: the scan never looks for them");
    }
}
