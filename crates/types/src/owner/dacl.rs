//! Windows' answer to "who else may write (or read) this file": its discretionary access list,
//! read into [`Ace`]s by `owner/windows.rs` and judged here, where the judgement is plain data
//! and tested on every OS.
//!
//! Accounts that count as the user's own: the user, the account new objects get as owner (the
//! token's default owner: `Administrators` in an elevated process), SYSTEM and the local
//! Administrators (who can take any file anyway), and `CREATOR OWNER` / `OWNER RIGHTS`. Anyone
//! else granted a right to change the file (`Users`, `Authenticated Users`, `Everyone`, another
//! user) makes it "writable by others", as group- or world-writable mode bits do on unix. Deny
//! entries are not read (the reader keeps allow entries only), so they are not subtracted: a
//! list that grants others write and denies it again is still refused (simpler to judge, and
//! not how Windows' own tools make files).

/// Who an access entry is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trustee {
    /// The user, the token's default owner, SYSTEM, Administrators, CREATOR OWNER, OWNER RIGHTS.
    Own,
    /// Anyone else.
    Other,
}

/// One allow entry (`ACCESS_ALLOWED_ACE_TYPE`) of a discretionary access list; no other type
/// grants, so the reader keeps only these.
#[derive(Clone, Debug)]
pub(crate) struct Ace {
    /// Inherit-only: it applies to what is created inside, not to this object.
    pub inherit_only: bool,
    /// The access mask.
    pub mask: u32,
    pub who: Trustee,
    /// The trustee's SID as text (`S-1-5-11`), for the message.
    pub name: String,
}

/// Rights that change a file or what is in a directory: `FILE_WRITE_DATA` (add a file),
/// `FILE_APPEND_DATA` (add a subdirectory), `FILE_DELETE_CHILD`, `DELETE`, `WRITE_DAC`,
/// `WRITE_OWNER`, `GENERIC_WRITE`, `GENERIC_ALL`.
pub(crate) const WRITE_RIGHTS: u32 = 0x2 | 0x4 | 0x40 | 0x1_0000 | 0x4_0000 | 0x8_0000 | 0x4000_0000 | 0x1000_0000;

/// Rights that read a file: `FILE_READ_DATA`, `GENERIC_READ`, `GENERIC_ALL`.
pub(crate) const READ_RIGHTS: u32 = 0x1 | 0x8000_0000 | 0x1000_0000;

/// The first account other than the user's own that `dacl` grants any of `rights` (`None`
/// inside: no access list at all, which grants everyone everything).
pub(crate) fn granted_to_others(dacl: Option<&[Ace]>, rights: u32) -> Option<String> {
    let Some(entries) = dacl else { return Some("every user (it has no access list)".to_string()) };
    entries.iter().find(|a| !a.inherit_only && a.who == Trustee::Other && a.mask & rights != 0).map(|a| describe(&a.name))
}

/// A well-known SID by the name Windows shows for it; others as the SID.
fn describe(sid: &str) -> String {
    match sid {
        "S-1-1-0" => "Everyone (S-1-1-0)".to_string(),
        "S-1-5-11" => "Authenticated Users (S-1-5-11)".to_string(),
        "S-1-5-32-545" => "Users (S-1-5-32-545)".to_string(),
        "S-1-5-4" => "Interactive users (S-1-5-4)".to_string(),
        "S-1-5-32-546" => "Guests (S-1-5-32-546)".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ace(who: Trustee, name: &str, mask: u32) -> Ace {
        Ace { inherit_only: false, mask, who, name: name.to_string() }
    }

    #[test]
    fn a_profile_directorys_list_is_the_users_own() {
        // What a file under C:\Users\me inherits: SYSTEM, Administrators and the user, full control.
        let profile = [ace(Trustee::Own, "S-1-5-18", 0x1F_01FF), ace(Trustee::Own, "S-1-5-32-544", 0x1F_01FF), ace(Trustee::Own, "S-1-5-21-1-2-3-1001", 0x1F_01FF)];
        assert_eq!(granted_to_others(Some(&profile), WRITE_RIGHTS), None);
        assert_eq!(granted_to_others(Some(&profile), READ_RIGHTS), None);
    }

    #[test]
    fn others_who_may_change_or_read_it_are_named() {
        // A folder made at C:\ root: Authenticated Users may modify, Users read and execute.
        let root = [ace(Trustee::Own, "S-1-5-18", 0x1F_01FF), ace(Trustee::Other, "S-1-5-32-545", 0x12_00A9), ace(Trustee::Other, "S-1-5-11", 0x13_01BF)];
        assert_eq!(granted_to_others(Some(&root), WRITE_RIGHTS).as_deref(), Some("Authenticated Users (S-1-5-11)"));
        assert_eq!(granted_to_others(Some(&root), READ_RIGHTS).as_deref(), Some("Users (S-1-5-32-545)"));
        // Another user with GENERIC_WRITE only.
        let other = [ace(Trustee::Other, "S-1-5-21-1-2-3-1002", 0x4000_0000)];
        assert_eq!(granted_to_others(Some(&other), WRITE_RIGHTS).as_deref(), Some("S-1-5-21-1-2-3-1002"));
        // No list at all: everyone, everything.
        assert_eq!(granted_to_others(None, WRITE_RIGHTS).as_deref(), Some("every user (it has no access list)"));
    }

    #[test]
    fn entries_that_do_not_apply_here_grant_nothing() {
        let mut inherit_only = ace(Trustee::Other, "S-1-1-0", 0x1F_01FF);
        inherit_only.inherit_only = true;
        // Everyone may only read attributes and synchronise: not a write.
        let attributes = ace(Trustee::Other, "S-1-1-0", 0x10_0080);
        assert_eq!(granted_to_others(Some(&[inherit_only, attributes]), WRITE_RIGHTS), None);
    }
}
