//! Everruns' `user_hooks` (seed 000/001): hookhost's canonical events are its events, by the
//! same names; configs are its capabilities JSON.

use super::{Naming, Profile, Runtime};

pub(super) const PROFILE: Profile = Profile {
    name: "everruns",
    title: "Everruns",
    reference: "Everruns user_hooks contract (seeds 000, 001)",
    events: &[],
    naming: Naming::Canonical,
    config_dir: None,
    config_files: &[],
    config_syntax: Some(Runtime::Everruns),
    dialect: Runtime::Everruns,
};
