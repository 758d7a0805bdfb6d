//! A file's owner and access list on Windows (`GetNamedSecurityInfoW`), against this process's
//! user (`GetTokenInformation`): the Windows side of [`super::not_own`], [`super::check_private`]
//! and [`super::owner_only`] (the judgement is `owner/dacl.rs`); and [`make_private`], which
//! gives a file or directory an access list of the user alone, not inherited from its parent.

use super::dacl::{self, Ace, Trustee};
use std::os::windows::ffi::OsStrExt;
use std::path::Path;
use windows_sys::Win32::Foundation::{CloseHandle, LocalFree, HANDLE};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, GetNamedSecurityInfoW, SetEntriesInAclW, SetNamedSecurityInfoW, EXPLICIT_ACCESS_W, NO_MULTIPLE_TRUSTEE, SET_ACCESS, SE_FILE_OBJECT, TRUSTEE_IS_SID, TRUSTEE_IS_USER, TRUSTEE_W,
};
use windows_sys::Win32::Security::{
    AclSizeInformation, EqualSid, GetAce, GetAclInformation, GetTokenInformation, IsWellKnownSid, TokenOwner, TokenUser, WinBuiltinAdministratorsSid, WinCreatorOwnerRightsSid, WinCreatorOwnerSid, WinLocalSystemSid, ACCESS_ALLOWED_ACE, ACL,
    ACL_SIZE_INFORMATION, DACL_SECURITY_INFORMATION, INHERIT_ONLY_ACE, NO_INHERITANCE, OWNER_SECURITY_INFORMATION, PROTECTED_DACL_SECURITY_INFORMATION, PSID, SUB_CONTAINERS_AND_OBJECTS_INHERIT, TOKEN_OWNER, TOKEN_QUERY,
    TOKEN_USER,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION};

/// `ACCESS_ALLOWED_ACE_TYPE`: the only entry type read as a grant.
const ACCESS_ALLOWED_ACE_TYPE: u8 = 0;

/// A security descriptor `GetNamedSecurityInfoW` allocated, freed on drop.
struct Descriptor(*mut core::ffi::c_void);

impl Drop for Descriptor {
    fn drop(&mut self) {
        // SAFETY: the pointer came from GetNamedSecurityInfoW, which allocates with LocalAlloc.
        unsafe { LocalFree(self.0) };
    }
}

/// This process's user and its default owner for new objects, as SIDs (copied bytes).
struct Me {
    user: Vec<u8>,
    owner: Vec<u8>,
}

/// The SID a token information class holds (`TokenUser`'s user, `TokenOwner`'s owner), copied
/// out while the buffer it points into is alive.
fn token_sid(token: HANDLE, class: i32) -> Option<Vec<u8>> {
    let mut len = 0u32;
    // SAFETY: a size query (null buffer, zero length) that writes only `len`.
    unsafe { GetTokenInformation(token, class, std::ptr::null_mut(), 0, &mut len) };
    if len == 0 {
        return None;
    }
    // u64 elements: the buffer starts with a pointer (the SID's), which needs its alignment.
    let mut buf = vec![0u64; (len as usize).div_ceil(8)];
    // SAFETY: `buf` holds at least `len` bytes.
    if unsafe { GetTokenInformation(token, class, buf.as_mut_ptr().cast(), len, &mut len) } == 0 {
        return None;
    }
    // SAFETY: TOKEN_USER and TOKEN_OWNER both begin with the SID pointer, which points inside
    // `buf`; it is copied before `buf` is dropped.
    let sid = unsafe {
        if class == TokenUser {
            (*(buf.as_ptr() as *const TOKEN_USER)).User.Sid
        } else {
            (*(buf.as_ptr() as *const TOKEN_OWNER)).Owner
        }
    };
    (!sid.is_null()).then(|| sid_bytes(sid))
}

/// Copy the SID `sid` points at.
fn sid_bytes(sid: PSID) -> Vec<u8> {
    // SAFETY: `sid` is a valid SID from the system; GetLengthSid reads its header.
    let len = unsafe { windows_sys::Win32::Security::GetLengthSid(sid) } as usize;
    // SAFETY: a valid SID is `len` bytes long.
    unsafe { std::slice::from_raw_parts(sid as *const u8, len) }.to_vec()
}

fn me() -> Option<Me> {
    // SAFETY: GetCurrentProcess is a pseudo handle, not closed.
    let (user, owner) = process_sids(unsafe { GetCurrentProcess() }, true)?;
    Some(Me { owner: owner.unwrap_or_else(|| user.clone()), user })
}

/// The user SID of the process `process` (and its default owner SID, when `owner`): `None` when
/// its token cannot be opened.
fn process_sids(process: HANDLE, owner: bool) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: `process` is a process handle; OpenProcessToken writes `token`.
    if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
        return None;
    }
    let user = token_sid(token, TokenUser);
    let owner = if owner { token_sid(token, TokenOwner) } else { None };
    // SAFETY: `token` was opened above.
    unsafe { CloseHandle(token) };
    Some((user?, owner))
}

/// `Ok` when the process `pid` runs as this user or as LocalSystem (on unix, root is trusted the
/// same way); why not otherwise. Another account's process usually cannot even be opened
/// (`PROCESS_QUERY_LIMITED_INFORMATION` is denied): that is an `Err`, like a foreign user.
pub(super) fn process_is_own(pid: u32) -> Result<(), String> {
    let me = me().ok_or("this process's user cannot be read")?;
    // SAFETY: a query-only handle to `pid`, closed below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return Err(format!("process {pid} cannot be opened (Windows error {})", std::io::Error::last_os_error().raw_os_error().unwrap_or(0)));
    }
    let sids = process_sids(process, false);
    // SAFETY: opened above.
    unsafe { CloseHandle(process) };
    let (user, _) = sids.ok_or_else(|| format!("process {pid}'s user cannot be read"))?;
    let sid = user.as_ptr() as PSID;
    // SAFETY: `sid` points at a copied SID, alive here; IsWellKnownSid only reads it.
    if same_sid(sid, &me.user) || unsafe { IsWellKnownSid(sid, WinLocalSystemSid) != 0 } {
        Ok(())
    } else {
        Err(format!("process {pid} runs as another account ({})", sid_text(sid)))
    }
}

fn same_sid(a: PSID, b: &[u8]) -> bool {
    // SAFETY: both are valid SIDs (`b` a copy of one).
    unsafe { EqualSid(a, b.as_ptr() as PSID) != 0 }
}

fn sid_text(sid: PSID) -> String {
    let mut text: windows_sys::core::PWSTR = std::ptr::null_mut();
    // SAFETY: `sid` is valid; the function allocates `text` with LocalAlloc.
    if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 || text.is_null() {
        return "an unknown account".to_string();
    }
    // SAFETY: `text` is a NUL-terminated UTF-16 string.
    let len = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
    // SAFETY: `len` units precede the NUL.
    let s = String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(text, len) });
    // SAFETY: allocated by ConvertSidToStringSidW.
    unsafe { LocalFree(text.cast()) };
    s
}

fn is_own(sid: PSID, me: &Me) -> bool {
    // SAFETY: `sid` is valid; IsWellKnownSid only reads it.
    let well_known = |kind| unsafe { IsWellKnownSid(sid, kind) != 0 };
    same_sid(sid, &me.user) || same_sid(sid, &me.owner) || [WinLocalSystemSid, WinBuiltinAdministratorsSid, WinCreatorOwnerSid, WinCreatorOwnerRightsSid].into_iter().any(well_known)
}

/// The owner SID (as text, when it is not this user's own) and the access list of `path`.
struct Security {
    foreign_owner: Option<String>,
    dacl: Option<Vec<Ace>>,
}

fn security(path: &Path) -> Result<Security, String> {
    let me = me().ok_or("this process's user cannot be read")?;
    let wide: Vec<u16> = path.as_os_str().encode_wide().chain(Some(0)).collect();
    let mut owner: PSID = std::ptr::null_mut();
    let mut list: *mut ACL = std::ptr::null_mut();
    let mut sd = std::ptr::null_mut();
    // SAFETY: `wide` is NUL-terminated; the out pointers point into `sd`, freed by Descriptor.
    let rc = unsafe { GetNamedSecurityInfoW(wide.as_ptr(), SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &mut owner, std::ptr::null_mut(), &mut list, std::ptr::null_mut(), &mut sd) };
    if rc != 0 {
        return Err(format!("its access list cannot be read (Windows error {rc})"));
    }
    let _sd = Descriptor(sd);
    let foreign_owner = (!owner.is_null() && !is_own(owner, &me)).then(|| sid_text(owner));
    let dacl = if list.is_null() {
        None
    } else {
        let mut info = ACL_SIZE_INFORMATION::default();
        // SAFETY: `list` is the descriptor's DACL; `info` is the size class's struct.
        unsafe { GetAclInformation(list, (&mut info as *mut ACL_SIZE_INFORMATION).cast(), std::mem::size_of::<ACL_SIZE_INFORMATION>() as u32, AclSizeInformation) };
        let mut entries = Vec::with_capacity(info.AceCount as usize);
        for i in 0..info.AceCount {
            let mut ace = std::ptr::null_mut();
            // SAFETY: `i` < AceCount; GetAce points `ace` into the list.
            if unsafe { GetAce(list, i, &mut ace) } == 0 {
                continue;
            }
            // SAFETY: every ACE starts with an ACE_HEADER; allow entries are ACCESS_ALLOWED_ACEs
            // whose SID starts at SidStart.
            let header = unsafe { *(ace as *const ACCESS_ALLOWED_ACE) };
            // Only allow entries grant (deny entries are not subtracted: owner/dacl.rs).
            if header.Header.AceType != ACCESS_ALLOWED_ACE_TYPE {
                continue;
            }
            // SAFETY: as above: the SID begins at the SidStart field.
            let sid = unsafe { std::ptr::addr_of!((*(ace as *const ACCESS_ALLOWED_ACE)).SidStart) } as PSID;
            let own = is_own(sid, &me);
            entries.push(Ace {
                inherit_only: u32::from(header.Header.AceFlags) & INHERIT_ONLY_ACE != 0,
                mask: header.Mask,
                who: if own { Trustee::Own } else { Trustee::Other },
                name: if own { String::new() } else { sid_text(sid) },
            });
        }
        Some(entries)
    };
    Ok(Security { foreign_owner, dacl })
}

/// Why `path` is not the user's own: another account owns it, or others may change it (one read
/// of its security descriptor).
pub(super) fn not_own(path: &Path) -> Option<String> {
    match security(path) {
        Ok(s) => match s.foreign_owner {
            Some(owner) => Some(format!("{} belongs to another account ({owner})", path.display())),
            None => dacl::granted_to_others(s.dacl.as_deref(), dacl::WRITE_RIGHTS).map(|who| format!("{} is writable by {who}", path.display())),
        },
        Err(e) => Some(format!("{}: {e}", path.display())),
    }
}

/// `Err` when another account owns `path` or others may change it.
pub(super) fn check_private(path: &Path) -> Result<(), String> {
    let s = security(path)?;
    if let Some(owner) = s.foreign_owner {
        return Err(format!("is owned by another account ({owner})"));
    }
    match dacl::granted_to_others(s.dacl.as_deref(), dacl::WRITE_RIGHTS) {
        Some(who) => Err(format!("is writable by {who}")),
        None => Ok(()),
    }
}

/// Whether no other account may read `path`.
pub(super) fn owner_only(path: &Path) -> bool {
    security(path).is_ok_and(|s| dacl::granted_to_others(s.dacl.as_deref(), dacl::READ_RIGHTS).is_none())
}

/// `FILE_ALL_ACCESS`: what the user keeps on a private file or directory.
const FILE_ALL_ACCESS: u32 = 0x1F_01FF;

/// Give `path` an access list of this user alone (full control; for a directory, inherited by
/// what is made inside it), protected from its parent's: the Windows counterpart of mode 0600 /
/// 0700. Administrators can still take ownership, as root can read any file on unix.
pub(super) fn make_private(path: &Path, directory: bool) -> std::io::Result<()> {
    let fail = |what: &str, code: u32| std::io::Error::other(format!("{}: cannot make it private ({what}: Windows error {code})", path.display()));
    let me = me().ok_or_else(|| fail("reading this process's user", 0))?;
    let mut user = me.user.clone();
    let entry = EXPLICIT_ACCESS_W {
        grfAccessPermissions: FILE_ALL_ACCESS,
        grfAccessMode: SET_ACCESS,
        grfInheritance: if directory { SUB_CONTAINERS_AND_OBJECTS_INHERIT } else { NO_INHERITANCE },
        Trustee: TRUSTEE_W { pMultipleTrustee: std::ptr::null_mut(), MultipleTrusteeOperation: NO_MULTIPLE_TRUSTEE, TrusteeForm: TRUSTEE_IS_SID, TrusteeType: TRUSTEE_IS_USER, ptstrName: user.as_mut_ptr().cast() },
    };
    let mut list: *mut ACL = std::ptr::null_mut();
    // SAFETY: one entry whose trustee is the SID in `user`, alive for the call; a new list is
    // allocated into `list` (LocalAlloc), freed below.
    let rc = unsafe { SetEntriesInAclW(1, &entry, std::ptr::null(), &mut list) };
    if rc != 0 {
        return Err(fail("building its access list", rc));
    }
    let wide: Vec<u16> = path.as_os_str().encode_wide().chain(Some(0)).collect();
    // SAFETY: `wide` is NUL-terminated; `list` is the list built above.
    let rc = unsafe { SetNamedSecurityInfoW(wide.as_ptr(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION, std::ptr::null_mut(), std::ptr::null_mut(), list, std::ptr::null()) };
    // SAFETY: allocated by SetEntriesInAclW.
    unsafe { LocalFree(list.cast()) };
    if rc != 0 {
        return Err(fail("setting its access list", rc));
    }
    Ok(())
}
