//! Times as hookhost writes them: RFC 3339 UTC with milliseconds, without a date crate.

/// The current time as RFC 3339 UTC with milliseconds, without a date crate.
pub fn now_rfc3339() -> String {
    rfc3339(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default())
}

/// An RFC 3339 UTC time as hookhost writes it (`2026-01-01T00:00:00.000Z`; the fraction may be
/// missing) in milliseconds since the Unix epoch; `None` for any other text.
pub fn unix_millis(ts: &str) -> Option<u64> {
    let num = |range: std::ops::Range<usize>| ts.get(range).and_then(|t| t.parse::<i64>().ok());
    let (y, m, d, h, min, s) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    let fraction = ts.get(19..).and_then(|rest| rest.strip_prefix('.')).map(|f| f.trim_end_matches('Z'));
    let ms = fraction.and_then(|f| f.get(..f.len().min(3))).and_then(|f| format!("{f:0<3}").parse::<i64>().ok()).unwrap_or(0);
    // Days-from-civil (Howard Hinnant's algorithm), the inverse of `rfc3339`'s.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from((days * 86_400 + h * 3600 + min * 60 + s) * 1000 + ms).ok()
}

/// A time since the Unix epoch as RFC 3339 UTC with milliseconds.
pub fn rfc3339(now: std::time::Duration) -> String {
    let secs = now.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_look_like_rfc3339() {
        let ts = now_rfc3339();
        assert_eq!(ts.len(), 24, "{ts}");
        assert!(ts.ends_with('Z') && ts.as_bytes()[10] == b'T', "{ts}");
    }

    #[test]
    fn rfc3339_times_read_back() {
        for ms in [0u64, 1_767_225_601_500, 951_782_400_000, 4_102_444_799_999] {
            assert_eq!(unix_millis(&rfc3339(std::time::Duration::from_millis(ms))), Some(ms));
        }
        assert_eq!(unix_millis("2026-01-01T00:00:01Z"), Some(1_767_225_601_000));
        assert_eq!(unix_millis("2026-01-01T00:00:01.5Z"), Some(1_767_225_601_500));
        assert_eq!(unix_millis("yesterday"), None);
    }
}
