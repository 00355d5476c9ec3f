//! The instruction the live-prefix request carries: pi's compaction prompt, pointed at the messages it
//! replaces by number.

use std::fmt::Write as _;

use serde_json::Value;
use tsify_next::Tsify;

use super::fields::{count, text};

/// Where pi's compaction falls in the replayed messages, 1-based, system messages not counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionRange {
    /// The message holding the previous summary.
    #[tsify(optional)]
    pub previous_summary_at: Option<u32>,
    /// The first message pi summarizes.
    pub history_first: u32,
    /// How many messages pi summarizes.
    pub history_count: u32,
    /// How many messages of a split turn's prefix follow (0: no split).
    pub prefix_count: u32,
    /// Messages in the request before the instruction.
    pub message_count: u32,
    /// The user's `/compact` instructions.
    #[tsify(optional)]
    pub custom_instructions: Option<String>,
}

impl CompactionRange {
    /// The range from the shim's object (camelCase fields).
    pub fn from_json(v: &Value) -> Self {
        let n = |k| count(v, k).unwrap_or(0);
        CompactionRange {
            previous_summary_at: count(v, "previousSummaryAt"),
            history_first: n("historyFirst"),
            history_count: n("historyCount"),
            prefix_count: n("prefixCount"),
            message_count: n("messageCount"),
            custom_instructions: text(v, "customInstructions"),
        }
    }

    fn history(&self) -> Option<(u32, u32)> {
        (self.history_count > 0).then(|| (self.history_first, self.history_first + self.history_count - 1))
    }

    fn prefix(&self) -> Option<(u32, u32)> {
        let first = self.history_first + self.history_count;
        (self.prefix_count > 0).then(|| (first, first + self.prefix_count - 1))
    }

    /// The last message the compaction replaces.
    fn last(&self) -> u32 {
        (self.history_first + self.history_count + self.prefix_count).saturating_sub(1)
    }
}

/// pi's checkpoint format for a first summary (its `SUMMARIZATION_PROMPT`), sections and hints verbatim.
const FORMAT: &str = "## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or \"(none)\" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or \"(none)\" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// pi's format when a previous summary is updated (its `UPDATE_SUMMARIZATION_INSTRUCTIONS`).
const UPDATE_FORMAT: &str = "## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// pi's rules for updating a previous summary.
const UPDATE_RULES: &str = "RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from \"In Progress\" to \"Done\" when completed
- UPDATE \"Next Steps\" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it";

/// pi's checkpoint of a split turn's prefix (its `TURN_PREFIX_SUMMARIZATION_PROMPT`).
const TURN_FORMAT: &str = "## Original Request
[What did the user ask for?]

## Progress So Far
- [Key decisions and work completed in these messages]

## Context Needed to Continue
- [Information from these messages needed to understand the later work]";

/// The line pi puts between the history summary and a split turn's checkpoint.
pub(super) const TURN_HEADING: &str = "**Turn Context (split turn):**";

/// The instruction appended to the replayed live request: pi's compaction prompt (its sections, the update
/// rules when a previous summary exists, the split turn's checkpoint, the user's `/compact` instructions),
/// pointed at the messages it replaces by number instead of a serialized copy of them.
pub fn compaction_instruction(r: &CompactionRange) -> String {
    let mut out = String::from(
        "Stop the task here: do not continue the work and do not call tools. Write a context checkpoint instead.\n\n",
    );
    let last = r.last();
    let kept = if last < r.message_count {
        format!("; messages {} to {} stay as they are after it", last + 1, r.message_count)
    } else {
        String::new()
    };
    match (r.history(), r.prefix()) {
        (Some((a, b)), prefix) => {
            let to = prefix.map_or(b, |(_, d)| d);
            let _ = write!(
                out,
                "This conversation is being compacted: messages {a} to {to} (counting from 1, system prompt excluded) \
                 will be replaced by what you write now{kept}. "
            );
            match r.previous_summary_at {
                Some(p) => {
                    let _ = write!(
                        out,
                        "Message {p} is the summary of an earlier compaction; messages {a} to {b} are NEW messages to \
                         incorporate into it. Update the existing structured summary with new information. {UPDATE_RULES}\n\n\
                         Use this EXACT format:\n\n{UPDATE_FORMAT}"
                    );
                }
                None => {
                    let _ = write!(
                        out,
                        "Create a structured context checkpoint summary of messages {a} to {b} that another LLM will use to \
                         continue the work.\n\nUse this EXACT format:\n\n{FORMAT}"
                    );
                }
            }
            if let Some((c, d)) = prefix {
                let _ = write!(
                out,
                    "\n\nMessages {c} to {d} are the start of the turn still in progress (its later messages are kept). \
                     After the summary write a line `---`, then the line `{TURN_HEADING}`, then a concise checkpoint of \
                     the user's request and the progress in messages {c} to {d}:\n\n{TURN_FORMAT}\n\n\
                     Only summarize information explicitly present in messages {c} to {d}. Do not infer or recreate later messages."
                );
            }
        }
        (None, Some((c, d))) => {
            let _ = write!(
                out,
                "This conversation is being compacted: messages {c} to {d} (counting from 1, system prompt excluded) \
                 will be replaced by what you write now{kept}. They are the start of the turn still in progress (its \
                 later messages are kept). Create a concise checkpoint of the user's request and the progress in \
                 messages {c} to {d}, placed before the later messages so the conversation can continue with the \
                 necessary context:\n\n{TURN_FORMAT}\n\n\
                 Only summarize information explicitly present in messages {c} to {d}. Do not infer or recreate later messages."
            );
        }
        (None, None) => {
            out += "This conversation is being compacted. Create a structured context checkpoint summary of it that \
                    another LLM will use to continue the work.\n\nUse this EXACT format:\n\n";
            out += FORMAT;
        }
    }
    if let Some(focus) = r.custom_instructions.as_deref().filter(|s| !s.trim().is_empty()) {
        let _ = write!(out, "\n\nAdditional focus: {focus}");
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::compaction) fn range(prev: Option<u32>, first: u32, history: u32, prefix: u32, count: u32) -> CompactionRange {
        CompactionRange { previous_summary_at: prev, history_first: first, history_count: history, prefix_count: prefix, message_count: count, custom_instructions: None }
    }

    #[test]
    fn the_instruction_names_the_range_and_carries_pis_format() {
        let i = compaction_instruction(&range(None, 1, 12, 0, 20));
        assert!(i.starts_with("Stop the task here: do not continue the work and do not call tools."), "{i}");
        assert!(i.contains("messages 1 to 12 (counting from 1, system prompt excluded) will be replaced by what you write now; messages 13 to 20 stay as they are after it."), "{i}");
        assert!(i.contains("Create a structured context checkpoint summary of messages 1 to 12"), "{i}");
        for section in ["## Goal", "## Constraints & Preferences", "### Done", "### In Progress", "### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context"] {
            assert!(i.contains(section), "{section}");
        }
        assert!(!i.contains("Turn Context") && !i.contains("Additional focus"), "{i}");
        assert!(i.ends_with("Preserve exact file paths, function names, and error messages."), "{i}");
    }

    #[test]
    fn the_instruction_updates_a_previous_summary() {
        let i = compaction_instruction(&range(Some(1), 2, 6, 0, 7));
        assert!(i.contains("messages 2 to 7 (counting"), "{i}");
        assert!(i.contains("Message 1 is the summary of an earlier compaction; messages 2 to 7 are NEW messages"), "{i}");
        assert!(i.contains("PRESERVE all existing information from the previous summary"), "{i}");
        assert!(i.contains("[Preserve existing goals, add new ones if the task expanded]"), "{i}");
        assert!(!i.contains("stay as they are"), "nothing kept after the range: {i}");
    }

    #[test]
    fn the_instruction_asks_for_a_split_turns_checkpoint() {
        let both = compaction_instruction(&range(None, 1, 4, 3, 9));
        assert!(both.contains("messages 1 to 7 (counting"), "{both}");
        assert!(both.contains("summary of messages 1 to 4"), "{both}");
        assert!(both.contains("Messages 5 to 7 are the start of the turn still in progress"), "{both}");
        assert!(both.contains("write a line `---`, then the line `**Turn Context (split turn):**`"), "{both}");
        assert!(both.contains("## Original Request") && both.contains("## Context Needed to Continue"), "{both}");
        let only = compaction_instruction(&CompactionRange { custom_instructions: Some("keep the parser plan".into()), ..range(Some(1), 2, 0, 5, 8) });
        assert!(only.contains("messages 2 to 6 (counting"), "{only}");
        assert!(only.contains("Create a concise checkpoint of the user's request and the progress in messages 2 to 6"), "{only}");
        assert!(!only.contains("## Goal"), "{only}");
        assert!(only.ends_with("\n\nAdditional focus: keep the parser plan"), "{only}");
    }
}
