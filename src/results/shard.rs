//! A shard of a run (`run --shard K/N`): which units this process runs.
//! The engine ([`crate::eval`]) keeps the units a shard owns; a shard
//! report names its shard, and `merge` checks the shards add up.

/// Shard `index` (1-based) of `count`: every unit whose position in the
/// full unit list is congruent to `index - 1` modulo `count`. Round-robin
/// keeps shards balanced in size and mixes scenarios and cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(raw: &str) -> Result<Self, ShardSpecError> {
        let bad = || ShardSpecError(raw.to_string());
        let (k, n) = raw.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }

    pub fn owns(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

/// A `--shard` (or shard report's `shard`) that is not `K/N` with
/// 1 <= K <= N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("shard must be K/N with 1 <= K <= N, got `{0}`")]
pub struct ShardSpecError(pub String);

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
