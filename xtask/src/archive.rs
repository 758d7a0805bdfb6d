//! Release archives that are the same bytes whenever their contents are: entries in name order,
//! one timestamp (the commit's, `SOURCE_DATE_EPOCH`), no owner, user or group names, fixed modes,
//! and a gzip header without a time or file name.

use anyhow::{Context, Result};
use std::io::Write;

/// One file in an archive.
pub struct Entry {
    /// Its path inside the archive, `/`-separated.
    pub path: String,
    pub bytes: Vec<u8>,
    /// Mode 0755 rather than 0644.
    pub executable: bool,
}

/// A `.tar.gz` of `entries` under the directory `top`.
pub fn tar_gz(top: &str, entries: &mut [Entry], mtime: u64) -> Result<Vec<u8>> {
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let gz = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    let mut dirs: Vec<String> = vec![top.to_string()];
    for e in entries.iter() {
        let mut parts: Vec<&str> = e.path.split('/').collect();
        parts.pop();
        for i in 1..=parts.len() {
            let d = format!("{top}/{}", parts[..i].join("/"));
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs.sort();
    for d in &dirs {
        let mut h = header(tar::EntryType::Directory, 0o755, 0, mtime);
        tar.append_data(&mut h, format!("{d}/"), std::io::empty()).with_context(|| format!("archiving {d}"))?;
    }
    for e in entries.iter() {
        let mut h = header(tar::EntryType::Regular, if e.executable { 0o755 } else { 0o644 }, e.bytes.len() as u64, mtime);
        tar.append_data(&mut h, format!("{top}/{}", e.path), e.bytes.as_slice()).with_context(|| format!("archiving {}", e.path))?;
    }
    let gz = tar.into_inner().context("finishing the tar archive")?;
    gz.finish().context("finishing the gzip stream")
}

fn header(kind: tar::EntryType, mode: u32, size: u64, mtime: u64) -> tar::Header {
    let mut h = tar::Header::new_ustar();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_size(size);
    h.set_mtime(mtime);
    h.set_uid(0);
    h.set_gid(0);
    h
}

/// A `.zip` of `entries` under the directory `top` (deflated; unix modes recorded for tools that
/// read them).
pub fn zip(top: &str, entries: &mut [Entry], mtime: u64) -> Result<Vec<u8>> {
    use zip::write::SimpleFileOptions;
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let time = zip_time(mtime)?;
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for e in entries.iter() {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(9))
            .last_modified_time(time)
            .unix_permissions(if e.executable { 0o755 } else { 0o644 });
        out.start_file(format!("{top}/{}", e.path), options).with_context(|| format!("archiving {}", e.path))?;
        out.write_all(&e.bytes)?;
    }
    Ok(out.finish().context("finishing the zip archive")?.into_inner())
}

/// The MS-DOS time a zip records: the UTC calendar date of `secs` (zip has no time zones; DOS
/// times start in 1980).
fn zip_time(secs: u64) -> Result<zip::DateTime> {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let (y, m, d) = if y < 1980 { (1980, 1, 1) } else { (y, m, d) };
    zip::DateTime::from_date_and_time(y as u16, m as u8, d as u8, (rem / 3600) as u8, (rem % 3600 / 60) as u8, (rem % 60) as u8)
        .map_err(|_| anyhow::anyhow!("SOURCE_DATE_EPOCH {secs} is past what a zip can record (2107)"))
}

/// Howard Hinnant's days-to-civil: the proleptic Gregorian date `days` after 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<Entry> {
        vec![
            Entry { path: "README.md".into(), bytes: b"read me".to_vec(), executable: false },
            Entry { path: "completions/hookhost.bash".into(), bytes: b"complete".to_vec(), executable: false },
            Entry { path: "hookhost".into(), bytes: vec![0x7f, b'E', b'L', b'F'], executable: true },
        ]
    }

    #[test]
    fn the_same_files_make_the_same_bytes_in_any_order() {
        let mut a = entries();
        let mut b = entries();
        b.reverse();
        assert_eq!(tar_gz("top", &mut a, 1_700_000_000).unwrap(), tar_gz("top", &mut b, 1_700_000_000).unwrap());
        assert_eq!(zip("top", &mut a, 1_700_000_000).unwrap(), zip("top", &mut b, 1_700_000_000).unwrap());
        // And the timestamp is the one given, not the clock's.
        assert_ne!(tar_gz("top", &mut a, 1_700_000_000).unwrap(), tar_gz("top", &mut a, 1_700_000_001).unwrap());
    }

    #[test]
    fn a_tar_gz_unpacks_to_the_files_with_their_modes() {
        let bytes = tar_gz("top", &mut entries(), 1_700_000_000).unwrap();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
        let mut seen = Vec::new();
        for e in archive.entries().unwrap() {
            let e = e.unwrap();
            let h = e.header();
            seen.push((e.path().unwrap().display().to_string(), h.mode().unwrap(), h.mtime().unwrap(), h.uid().unwrap()));
        }
        assert_eq!(
            seen,
            vec![
                ("top/".into(), 0o755, 1_700_000_000, 0),
                ("top/completions/".into(), 0o755, 1_700_000_000, 0),
                ("top/README.md".into(), 0o644, 1_700_000_000, 0),
                ("top/completions/hookhost.bash".into(), 0o644, 1_700_000_000, 0),
                ("top/hookhost".into(), 0o755, 1_700_000_000, 0),
            ]
        );
    }

    #[test]
    fn dates_are_the_calendar_dates_of_the_epoch_seconds() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2024-02-29 (a leap day) is day 19782.
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(19_783), (2024, 3, 1));
    }
}
