//! Limits shared by every run of an evaluation: how many requests may be in
//! flight at once ([`ConcurrencyLimit`], `--max-concurrency`) and how much
//! money may be spent ([`SpendBudget`], `--max-cost`).
//!
//! Both are shared by reference counting: one value per evaluation, a clone
//! of the `Arc` in every model.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// A counting semaphore over requests in flight. A permit is held while a
/// request is on the wire and released (on drop) before any backoff sleep,
/// so a model waiting to retry does not block the others.
#[derive(Debug)]
pub struct ConcurrencyLimit {
    max: usize,
    in_use: Mutex<usize>,
    freed: Condvar,
}

impl ConcurrencyLimit {
    /// At most `max` requests at once; `max` 0 is taken as 1.
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max: max.max(1),
            in_use: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// Waits for a free slot. The slot is freed when the permit drops.
    pub fn acquire(self: &Arc<Self>) -> Permit {
        let mut in_use = self.in_use.lock().unwrap_or_else(PoisonError::into_inner);
        while *in_use >= self.max {
            in_use = self
                .freed
                .wait(in_use)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *in_use += 1;
        Permit {
            limit: Arc::clone(self),
        }
    }
}

/// One slot of a [`ConcurrencyLimit`], given back on drop.
#[derive(Debug)]
pub struct Permit {
    limit: Arc<ConcurrencyLimit>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut in_use = self
            .limit
            .in_use
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *in_use = in_use.saturating_sub(1);
        self.limit.freed.notify_one();
    }
}

/// Why a budget cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the spend limit must be a finite number of US dollars >= 0, got {0}")]
pub struct BadBudget(pub f64);

/// Money all runs may spend together, in US dollars. Every priced response
/// is charged to it; once the total reaches the limit no new run should
/// start (the runner asks [`SpendBudget::allows_new_run`]); runs already in
/// flight finish, so the final spend can pass the limit by what they use.
#[derive(Debug)]
pub struct SpendBudget {
    limit: f64,
    spent: Mutex<f64>,
}

impl SpendBudget {
    pub fn new(limit_usd: f64) -> Result<Arc<Self>, BadBudget> {
        if !limit_usd.is_finite() || limit_usd < 0.0 {
            return Err(BadBudget(limit_usd));
        }
        Ok(Arc::new(Self {
            limit: limit_usd,
            spent: Mutex::new(0.0),
        }))
    }

    pub fn limit(&self) -> f64 {
        self.limit
    }

    pub fn charge(&self, cost_usd: f64) {
        if cost_usd.is_finite() && cost_usd > 0.0 {
            *self.spent.lock().unwrap_or_else(PoisonError::into_inner) += cost_usd;
        }
    }

    pub fn spent(&self) -> f64 {
        *self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// False once the spend has reached the limit.
    pub fn allows_new_run(&self) -> bool {
        self.spent() < self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn never_more_permits_than_the_limit() {
        let limit = ConcurrencyLimit::new(2);
        let active = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (limit, active, peak) = (limit.clone(), active.clone(), peak.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let _permit = limit.acquire();
                        let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        active.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(peak.load(Ordering::SeqCst) <= 2);
        assert!(peak.load(Ordering::SeqCst) >= 1);
    }

    #[test]
    fn budget_stops_new_runs_once_spent() {
        let budget = SpendBudget::new(1.0).unwrap();
        assert!(budget.allows_new_run());
        budget.charge(0.6);
        assert!(budget.allows_new_run());
        budget.charge(0.6);
        assert!(!budget.allows_new_run());
        assert!((budget.spent() - 1.2).abs() < 1e-9);
        budget.charge(f64::NAN);
        assert!((budget.spent() - 1.2).abs() < 1e-9);
        assert!(SpendBudget::new(-1.0).is_err());
        assert!(SpendBudget::new(f64::INFINITY).is_err());
        assert!(!SpendBudget::new(0.0).unwrap().allows_new_run());
    }
}
