//! Figures over timed samples, shared by `hookhost bench` and `hookhost loadtest`.

use std::time::Duration;

/// The `q` quantile (nearest rank) in microseconds; 0 for no samples.
pub(crate) fn percentile(samples: &[Duration], q: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e6
}

#[cfg(test)]
mod tests {
    use super::percentile;
    use std::time::Duration;

    #[test]
    fn percentile_is_nearest_rank() {
        let s: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&s, 0.50), 50.0);
        assert_eq!(percentile(&s, 0.99), 99.0);
        assert_eq!(percentile(&s[..1], 0.99), 1.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
