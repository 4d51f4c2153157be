//! The Kafka command lines that findings print as fixes: whole and copyable (issue 26), each
//! built in one place. `HOST:PORT` is the one placeholder: logclean reads files, not the
//! cluster's listeners. Names from the files are shell-quoted when they need it.

use crate::model::names::shell_word;

/// `kafka-configs.sh` setting `key=value` on one topic.
pub fn alter_topic(topic: &str, key: &str, value: impl std::fmt::Display) -> String {
    format!(
        "kafka-configs.sh --bootstrap-server HOST:PORT --alter --entity-type topics \
         --entity-name {} --add-config {key}={value}",
        shell_word(topic.as_bytes())
    )
}

/// `kafka-configs.sh` setting `key=value` as the cluster-wide broker default (dynamic keys only).
pub fn alter_broker_default(key: &str, value: impl std::fmt::Display) -> String {
    format!(
        "kafka-configs.sh --bootstrap-server HOST:PORT --alter --entity-type brokers \
         --entity-default --add-config {key}={value}"
    )
}

/// `kafka-delete-records.sh` moving the log start of one partition to `offset` (it reads the
/// offsets from a JSON file: written first, in the current directory).
pub fn delete_records(topic: &str, partition: i32, offset: i64) -> String {
    // A JSON string inside a single-quoted shell word: a quote from the files is escaped for
    // JSON so it cannot end the word (`serde_json` escapes the control bytes).
    let name = serde_json::to_string(topic)
        .unwrap_or_else(|_| String::from("\"\""))
        .replace('\'', "\\u0027");
    format!(
        "echo '{{\"partitions\":[{{\"topic\":{name},\"partition\":{partition},\"offset\":\
         {offset}}}],\"version\":1}}' > delete-records.json && kafka-delete-records.sh \
         --bootstrap-server HOST:PORT --offset-json-file delete-records.json"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_whole_and_quote_what_the_files_named() {
        assert_eq!(
            alter_topic("ft", "segment.ms", 7_200_000),
            "kafka-configs.sh --bootstrap-server HOST:PORT --alter --entity-type topics \
             --entity-name ft --add-config segment.ms=7200000"
        );
        assert!(alter_topic("a b", "k", 1).contains("--entity-name 'a b' "));
        assert_eq!(
            alter_broker_default("log.cleaner.threads", 2),
            "kafka-configs.sh --bootstrap-server HOST:PORT --alter --entity-type brokers \
             --entity-default --add-config log.cleaner.threads=2"
        );
        assert_eq!(
            delete_records("ft", 0, 42),
            "echo '{\"partitions\":[{\"topic\":\"ft\",\"partition\":0,\"offset\":42}],\
             \"version\":1}' > delete-records.json && kafka-delete-records.sh \
             --bootstrap-server HOST:PORT --offset-json-file delete-records.json"
        );
        // A quote from a file cannot end the shell word.
        assert!(!delete_records("a'b", 0, 1).contains("a'b"));
    }
}
