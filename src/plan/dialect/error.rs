//! Why a planning call is refused, where a dialect's refusals are a fixed
//! list: Qwen Code's `todo_write` ([`QwenTodoError`]) and the
//! `create-update` tools ([`CreateUpdateError`]). Each message is the
//! CLI's own text, the tool result the model reads (a test pins them).
//! Dialects whose refusals are assembled from the input's issues (the
//! Zod-style messages of Claude Code's Task tools and Copilot's SQL tool)
//! build their text where it is assembled.

use thiserror::Error;

/// Qwen Code's checks of a `todo_write` list, in the binary's order.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QwenTodoError {
    #[error("Parameter \"todos\" must be an array.")]
    NotAnArray,
    #[error("Each todo must be an object.")]
    NotAnObject,
    #[error("Each todo must have a non-empty \"id\" string of at most 500 characters.")]
    BadId,
    #[error("Each todo must have a non-empty \"content\" string.")]
    BadContent,
    #[error("Each todo must have a valid \"status\" (pending, in_progress, completed).")]
    BadStatus,
    #[error(
        "Each todo \"blockedBy\" value must be an array of non-empty Todo IDs of at most 500 characters."
    )]
    BadBlockedBy,
    #[error("Todo IDs must be unique within the array.")]
    DuplicateIds,
    #[error("Todo \"{id}\" must not contain duplicate blockedBy references.")]
    DuplicateBlockers { id: String },
    #[error("Todo \"{id}\" must not depend on itself.")]
    SelfDependency { id: String },
    #[error("Todo \"{id}\" references unknown dependency \"{missing}\".")]
    UnknownDependency { id: String, missing: String },
    #[error("Todo dependencies must not contain a cycle.")]
    Cycle,
}

/// The `create_todos` / `update_todo` checks, in Chinese as the tools
/// answer (each message starts with `错误:`, which is how
/// `is_error` knows a refusal).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CreateUpdateError {
    #[error("错误:参数必须是一个对象,收到的是 {kind}。")]
    NotAnObject { kind: &'static str },
    #[error("错误:必须提供至少一个步骤描述。")]
    NoSteps,
    #[error("错误:items 必须是字符串列表,收到的是 {kind}。")]
    ItemsNotAList { kind: &'static str },
    /// Step `n` (1-based) is not a string.
    #[error("错误:第 {n} 个步骤描述必须是字符串,收到的是 {kind}。")]
    StepNotAString { n: usize, kind: &'static str },
    #[error("错误:第 {n} 个步骤描述不能为空。")]
    EmptyStep { n: usize },
    #[error("错误:无效状态 \"{status}\",可选值: running, completed, failed")]
    BadStatus { status: String },
    #[error("错误:必须提供步骤 ID。")]
    MissingId,
    #[error("错误:未找到 ID 为 \"{id}\" 的步骤。")]
    UnknownId { id: String },
}

#[cfg(test)]
mod tests {
    use super::CreateUpdateError as C;
    use super::QwenTodoError as E;

    /// The `create-update` messages, pinned byte for byte as they were
    /// when the checks returned strings.
    #[test]
    fn create_update_messages_are_the_tools_own() {
        let cases = [
            (
                C::NotAnObject { kind: "list" },
                "错误:参数必须是一个对象,收到的是 list。",
            ),
            (C::NoSteps, "错误:必须提供至少一个步骤描述。"),
            (
                C::ItemsNotAList { kind: "str" },
                "错误:items 必须是字符串列表,收到的是 str。",
            ),
            (
                C::StepNotAString { n: 2, kind: "int" },
                "错误:第 2 个步骤描述必须是字符串,收到的是 int。",
            ),
            (C::EmptyStep { n: 1 }, "错误:第 1 个步骤描述不能为空。"),
            (
                C::BadStatus {
                    status: "done".into(),
                },
                "错误:无效状态 \"done\",可选值: running, completed, failed",
            ),
            (C::MissingId, "错误:必须提供步骤 ID。"),
            (
                C::UnknownId { id: "9".into() },
                "错误:未找到 ID 为 \"9\" 的步骤。",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    /// The messages the model reads, pinned byte for byte as they were
    /// when the checks returned strings.
    #[test]
    fn messages_are_the_cli_s_own() {
        let id = || "a".to_string();
        let cases = [
            (E::NotAnArray, "Parameter \"todos\" must be an array."),
            (E::NotAnObject, "Each todo must be an object."),
            (
                E::BadId,
                "Each todo must have a non-empty \"id\" string of at most 500 characters.",
            ),
            (
                E::BadContent,
                "Each todo must have a non-empty \"content\" string.",
            ),
            (
                E::BadStatus,
                "Each todo must have a valid \"status\" (pending, in_progress, completed).",
            ),
            (
                E::BadBlockedBy,
                "Each todo \"blockedBy\" value must be an array of non-empty Todo IDs of at most 500 characters.",
            ),
            (E::DuplicateIds, "Todo IDs must be unique within the array."),
            (
                E::DuplicateBlockers { id: id() },
                "Todo \"a\" must not contain duplicate blockedBy references.",
            ),
            (
                E::SelfDependency { id: id() },
                "Todo \"a\" must not depend on itself.",
            ),
            (
                E::UnknownDependency {
                    id: id(),
                    missing: "b".into(),
                },
                "Todo \"a\" references unknown dependency \"b\".",
            ),
            (E::Cycle, "Todo dependencies must not contain a cycle."),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
