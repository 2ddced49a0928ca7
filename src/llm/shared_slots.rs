//! A small direct-mapped cache, one a thread, of what was worked out from
//! a value shared between runs: a scripted model sends the same `Arc` in
//! every run of a scenario, so what follows from that value alone is worked
//! out once. The price counts a shared tool input this way
//! (`price::input_chars`), and a planning call is applied this way
//! (`plan::dialect::apply_shared`).
//!
//! A value's slot is fixed by its address, and a newcomer takes the slot
//! over, so the cache stays bounded. Each entry must hold its value (a
//! clone of the `Arc`) and compare it with `Arc::ptr_eq`: while it is held
//! its address is not reused for another value, and a shared value never
//! changes.

use std::sync::Arc;

/// The slots, each empty or holding one entry.
pub struct SharedSlots<T> {
    slots: Vec<Option<T>>,
}

impl<T> SharedSlots<T> {
    /// `len` empty slots (at least one).
    pub fn new(len: usize) -> Self {
        Self {
            slots: (0..len.max(1)).map(|_| None).collect(),
        }
    }

    /// The slot of `value`: its entry, if any, may be another value's.
    pub fn slot<V>(&mut self, value: &Arc<V>) -> Option<&mut Option<T>> {
        // Allocations are 16-byte aligned: the low bits say nothing.
        let index = (Arc::as_ptr(value) as usize >> 4) % self.slots.len();
        self.slots.get_mut(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_keeps_its_slot_and_the_slots_stay_bounded() {
        let mut slots = SharedSlots::<u32>::new(4);
        let values: Vec<Arc<u64>> = (0..16).map(Arc::new).collect();
        for (k, value) in values.iter().enumerate() {
            if let Some(slot) = slots.slot(value) {
                *slot = Some(k as u32);
            }
        }
        let held = slots.slots.iter().flatten().count();
        assert!((1..=4).contains(&held), "{held} entries in 4 slots");
        let last = values.last().map(|v| slots.slot(v).map(|s| *s));
        assert_eq!(last, Some(Some(Some(15))));
        assert_eq!(SharedSlots::<u32>::new(0).slots.len(), 1);
    }
}
