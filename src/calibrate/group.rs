//! Groups and duplicates: what calibration takes as independent.
//!
//! Sessions of one project (a Claude Code project folder, a Codex working
//! directory, a run log's scenario: [`crate::transcript::GroupBy`]) share a
//! person, a codebase and habits; they are not independent draws. A
//! *group* is the unit of independence: the bootstrap resamples groups and
//! the held-out split keeps each group whole, so no project sits on both
//! sides of the fidelity check. With fewer than [`MIN_GROUPS`] groups there
//! is nothing to resample, and each session is its own group — said in the
//! output, since the intervals then treat sessions as independent.
//!
//! A session read twice (the same file copied, linked, or in two backups)
//! counts once: same agent session id, or same content.

use std::collections::BTreeMap;

use crate::transcript::Session;

/// The fewest groups that are resampled as groups.
pub const MIN_GROUPS: usize = 2;

/// The group of every session, numbered in order of first appearance, and
/// whether the sessions stand alone for want of groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    /// The group index of each session.
    pub of: Vec<usize>,
    /// How many groups.
    pub count: usize,
    /// Fewer than [`MIN_GROUPS`] groups: each session is its own.
    pub sessions_alone: bool,
}

impl Groups {
    /// The groups of `sessions` (by [`Session::group`]).
    pub fn of(sessions: &[Session]) -> Self {
        let mut numbers: BTreeMap<&str, usize> = BTreeMap::new();
        let of: Vec<usize> = sessions
            .iter()
            .map(|s| {
                let next = numbers.len();
                *numbers.entry(s.group.as_str()).or_insert(next)
            })
            .collect();
        if numbers.len() < MIN_GROUPS {
            return Self {
                of: (0..sessions.len()).collect(),
                count: sessions.len(),
                sessions_alone: true,
            };
        }
        Self {
            count: numbers.len(),
            of,
            sessions_alone: false,
        }
    }

    /// The sessions of each group (indices), group by group.
    pub fn members(&self) -> Vec<Vec<usize>> {
        let mut members = vec![Vec::new(); self.count];
        for (session, &group) in self.of.iter().enumerate() {
            if let Some(list) = members.get_mut(group) {
                list.push(session);
            }
        }
        members
    }

    /// Per-session pairs `(events, chances)` summed per group: a ratio of
    /// sums is the same over either, and the groups are what resample.
    pub fn sum_pairs(&self, per_session: &[(f64, f64)]) -> Vec<(f64, f64)> {
        let mut sums = vec![(0.0, 0.0); self.count];
        for (pair, &group) in per_session.iter().zip(&self.of) {
            if let Some(sum) = sums.get_mut(group) {
                sum.0 += pair.0;
                sum.1 += pair.1;
            }
        }
        sums
    }
}

/// `sessions` with every session seen before dropped (same agent session
/// id within a format, or same content hash), and how many were dropped.
/// Of two copies the one with more turns stays (a resumed session's file
/// holds the earlier one's records and more), in the first one's place.
pub fn drop_duplicates(sessions: Vec<Session>) -> (Vec<Session>, usize) {
    let mut kept: Vec<Session> = Vec::with_capacity(sessions.len());
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    let mut dropped = 0;
    for session in sessions {
        let keys = keys_of(&session);
        match keys.iter().find_map(|k| by_key.get(k).copied()) {
            Some(at) => {
                dropped += 1;
                if let Some(slot) = kept.get_mut(at)
                    && session.turns().count() > slot.turns().count()
                {
                    *slot = session;
                }
                for key in keys {
                    by_key.entry(key).or_insert(at);
                }
            }
            None => {
                for key in keys {
                    by_key.insert(key, kept.len());
                }
                kept.push(session);
            }
        }
    }
    (kept, dropped)
}

/// What makes two sessions one: the agent's id (within its format) and
/// the content hash, where known.
fn keys_of(session: &Session) -> Vec<String> {
    let mut keys = Vec::new();
    if let Some(id) = &session.id {
        keys.push(format!("id:{:?}:{id}", session.format));
    }
    if !session.content_hash.is_empty() {
        keys.push(format!("content:{}", session.content_hash));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, Part, Reminders, Turn};

    fn session(group: &str, id: Option<&str>, hash: &str, turns: usize) -> Session {
        Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: vec![Part {
                turns: vec![Turn::default(); turns],
            }],
            id: id.map(str::to_string),
            group: group.into(),
            content_hash: hash.into(),
        }
    }

    #[test]
    fn groups_are_numbered_in_order_and_pairs_summed_per_group() {
        let sessions = [
            session("b", None, "", 1),
            session("a", None, "", 1),
            session("b", None, "", 1),
        ];
        let groups = Groups::of(&sessions);
        assert_eq!(groups.of, vec![0, 1, 0]);
        assert_eq!(groups.count, 2);
        assert!(!groups.sessions_alone);
        assert_eq!(groups.members(), vec![vec![0, 2], vec![1]]);
        assert_eq!(
            groups.sum_pairs(&[(1.0, 2.0), (0.0, 1.0), (3.0, 4.0)]),
            vec![(4.0, 6.0), (0.0, 1.0)]
        );
    }

    #[test]
    fn one_group_leaves_each_session_alone() {
        let sessions = [session("a", None, "", 1), session("a", None, "", 1)];
        let groups = Groups::of(&sessions);
        assert!(groups.sessions_alone);
        assert_eq!(groups.of, vec![0, 1]);
    }

    #[test]
    fn a_session_seen_twice_counts_once_and_the_longer_copy_stays() {
        let sessions = vec![
            session("a", Some("s1"), "h1", 3),
            session("b", None, "h1", 3),
            session("a", Some("s1"), "h2", 5),
            session("a", Some("s2"), "h3", 1),
        ];
        let (kept, dropped) = drop_duplicates(sessions);
        assert_eq!(dropped, 2);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].turns().count(), 5);
        assert_eq!(kept[1].id.as_deref(), Some("s2"));
    }
}
