//! What `--topic` kept: said in every rendering of `plan` and `config`, so a filtered run never
//! reads as the whole, and a topic that is not there is named (as Kafka's tools say "does not
//! exist") instead of an empty answer.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::report::sanitize::escape;

/// `--topic` over the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TopicFilterDoc {
    /// The topics asked for.
    pub topics: Vec<String>,
    /// The items shown (partition replicas for `plan`, topics for `config`).
    pub shown: u64,
    /// The items in the input.
    pub of: u64,
    /// What the items are.
    pub unit: &'static str,
    /// Topics asked for that the input does not hold.
    pub not_found: Vec<String>,
}

impl TopicFilterDoc {
    /// `None` without `--topic`. `present` names every topic the input holds.
    pub fn of<'a>(
        topics: &[String],
        present: impl IntoIterator<Item = &'a str>,
        shown: usize,
        of: usize,
        unit: &'static str,
    ) -> Option<TopicFilterDoc> {
        if topics.is_empty() {
            return None;
        }
        let present: BTreeSet<&str> = present.into_iter().collect();
        Some(TopicFilterDoc {
            topics: topics.to_vec(),
            shown: shown as u64,
            of: of as u64,
            unit,
            not_found: (topics.iter())
                .filter(|t| !present.contains(t.as_str()))
                .cloned()
                .collect(),
        })
    }

    /// One sentence for a table (names escaped).
    pub fn words(&self) -> String {
        let mut s = format!(
            "filtered: --topic {} shows {} of the {} {} given",
            escape(&self.topics.join(",")),
            self.shown,
            self.of,
            self.unit
        );
        if !self.not_found.is_empty() {
            s.push_str(&format!(
                "; not found: {}",
                escape(&self.not_found.join(", "))
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_it_kept_and_what_is_missing() {
        assert_eq!(TopicFilterDoc::of(&[], ["a"], 1, 1, "topic(s)"), None);
        let f = TopicFilterDoc::of(
            &["a".to_string(), "nosuch".to_string()],
            ["a", "b"],
            1,
            4,
            "partition replica(s)",
        )
        .unwrap();
        assert_eq!(f.not_found, vec!["nosuch".to_string()]);
        assert_eq!(
            f.words(),
            "filtered: --topic a,nosuch shows 1 of the 4 partition replica(s) given; not found: \
             nosuch"
        );
    }
}
