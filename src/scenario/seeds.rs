//! Which seeds a cell runs (`runs.seeds`).

use serde::Deserialize;
use serde::de::{self, Deserializer};

/// Which seeds a cell runs: `N` means 0..N, a list means those.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seeds {
    Count(u64),
    List(Vec<u64>),
}

impl Seeds {
    pub fn to_vec(&self) -> Vec<u64> {
        match self {
            Seeds::Count(n) => (0..*n).collect(),
            Seeds::List(list) => list.clone(),
        }
    }
}

/// The most seeds a cell may run, a guard against a typo'd `seeds: 2000000000`.
pub const MAX_SEEDS: u64 = 100_000;

impl<'de> Deserialize<'de> for Seeds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Count(u64),
            List(Vec<u64>),
        }
        let raw = Raw::deserialize(d).map_err(|_| {
            de::Error::custom("seeds must be a count (N means seeds 0..N-1) or a list of seeds")
        })?;
        match raw {
            Raw::Count(n) if (1..=MAX_SEEDS).contains(&n) => Ok(Seeds::Count(n)),
            Raw::Count(n) => Err(de::Error::custom(format!(
                "seeds must be between 1 and {MAX_SEEDS}, got {n}"
            ))),
            Raw::List(list) if list.is_empty() => {
                Err(de::Error::custom("seeds list must not be empty"))
            }
            Raw::List(list) if list.len() as u64 > MAX_SEEDS => Err(de::Error::custom(format!(
                "seeds list must hold at most {MAX_SEEDS} seeds, got {}",
                list.len()
            ))),
            Raw::List(list) => {
                // A seed twice would be the same run twice: runs are paired
                // and shards merged by seed, so each seed is one run.
                let mut sorted = list.clone();
                sorted.sort_unstable();
                let twice = sorted.windows(2).find_map(|pair| match pair {
                    [a, b] if a == b => Some(*a),
                    _ => None,
                });
                match twice {
                    Some(seed) => Err(de::Error::custom(format!(
                        "seeds list names seed {seed} twice"
                    ))),
                    None => Ok(Seeds::List(list)),
                }
            }
        }
    }
}
