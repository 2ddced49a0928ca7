//! `run --filter`: which scenarios, by name, an invocation keeps.

/// `--filter` patterns: a scenario is kept when its name contains one of
/// the plain patterns (any, when there are none) and none of the `!`
/// patterns, ignoring case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameFilter {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl NameFilter {
    /// Reads patterns as given (each may hold several, comma-separated).
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Self {
        let mut filter = Self::default();
        for pattern in patterns.iter().flat_map(|p| p.as_ref().split(',')) {
            let pattern = pattern.trim();
            match pattern.strip_prefix('!') {
                Some(negated) if !negated.trim().is_empty() => {
                    filter.exclude.push(negated.trim().to_lowercase());
                }
                Some(_) => {}
                None if pattern.is_empty() => {}
                None => filter.include.push(pattern.to_lowercase()),
            }
        }
        filter
    }

    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    pub fn matches(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        (self.include.is_empty() || self.include.iter().any(|p| name.contains(p.as_str())))
            && !self.exclude.iter().any(|p| name.contains(p.as_str()))
    }
}

impl std::fmt::Display for NameFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .include
            .iter()
            .cloned()
            .chain(self.exclude.iter().map(|p| format!("!{p}")))
            .collect();
        write!(f, "{}", parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_ignore_case_take_several_patterns_and_negation() {
        let f = NameFilter::new(&["Refactor,smoke", "!SLOW"]);
        assert!(f.matches("ten-step-refactor"));
        assert!(f.matches("SMOKE-test"));
        assert!(!f.matches("slow-refactor"));
        assert!(!f.matches("other"));
        let only_negated = NameFilter::new(&["!slow"]);
        assert!(only_negated.matches("anything"));
        assert!(!only_negated.matches("very-Slow-one"));
        assert!(NameFilter::new(&[""]).is_empty());
        assert_eq!(f.to_string(), "refactor,smoke,!slow");
    }
}
