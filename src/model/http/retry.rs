//! When and how long to wait before asking a real API again.
//!
//! Retried: connection failures and timeouts, and statuses 408, 409, 429 and
//! every 5xx (which covers Anthropic's 529 "overloaded"), as the official
//! SDKs do. The wait doubles per attempt from `base_delay` up to `max_delay`,
//! with jitter, unless the server says how long (`retry-after-ms` or
//! `retry-after` in seconds), which is honoured up to `max_delay`.
//!
//! The jitter comes from a ChaCha generator seeded by the caller (the run's
//! seed), never from the thread's random source, and it only changes how
//! long we sleep: no result depends on it.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use reqwest::header::HeaderMap;
use std::time::Duration;

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// The wait before the second attempt (before jitter).
    pub base_delay: Duration,
    /// No single wait is longer.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

/// Statuses worth another attempt.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// The wait a server asked for, if it said: `retry-after-ms` (milliseconds)
/// or `retry-after` (seconds; an HTTP date is ignored).
pub fn server_delay(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let value = headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Some(Duration::from_secs_f64(ms.min(1e9) / 1000.0));
    }
    number("retry-after").map(|s| Duration::from_secs_f64(s.min(1e9)))
}

/// The waits of one model, in order.
#[derive(Debug, Clone)]
pub struct Backoff {
    policy: RetryPolicy,
    jitter: ChaCha8Rng,
}

impl Backoff {
    pub fn new(policy: RetryPolicy, seed: u64) -> Self {
        Self {
            policy,
            jitter: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    pub fn policy(&self) -> RetryPolicy {
        self.policy
    }

    /// The wait after failed attempt `attempt` (1-based): the server's, if
    /// it gave one, else `base * 2^(attempt-1)` scaled by a factor in
    /// [0.5, 1), both capped at `max_delay`.
    pub fn delay(&mut self, attempt: u32, server: Option<Duration>) -> Duration {
        let cap = self.policy.max_delay;
        if let Some(server) = server {
            return server.min(cap);
        }
        let doubling = 2u32.saturating_pow(attempt.saturating_sub(1).min(20));
        let full = self.policy.base_delay.saturating_mul(doubling).min(cap);
        let unit = (self.jitter.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        full.mul_f64(0.5 + unit / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retryable_statuses() {
        for status in [408, 409, 429, 500, 502, 503, 529] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [200, 400, 401, 403, 404, 413, 422] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }

    #[test]
    fn delays_double_are_capped_and_repeat_for_a_seed() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(5),
        };
        let mut a = Backoff::new(policy, 7);
        let mut b = Backoff::new(policy, 7);
        for attempt in 1..8 {
            let d = a.delay(attempt, None);
            assert_eq!(d, b.delay(attempt, None));
            let full = Duration::from_secs(1 << (attempt - 1)).min(Duration::from_secs(5));
            assert!(d >= full / 2 && d < full, "attempt {attempt}: {d:?}");
        }
        assert_eq!(
            a.delay(1, Some(Duration::from_secs(60))),
            Duration::from_secs(5)
        );
        assert_eq!(
            a.delay(1, Some(Duration::from_millis(20))),
            Duration::from_millis(20)
        );
    }

    #[test]
    fn reads_server_delays() {
        let mut headers = HeaderMap::new();
        assert_eq!(server_delay(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(server_delay(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(server_delay(&headers), Some(Duration::from_millis(150)));
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(server_delay(&dated), None);
        dated.insert("retry-after", HeaderValue::from_static("-3"));
        assert_eq!(server_delay(&dated), None);
    }
}
