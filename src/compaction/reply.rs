//! What the live-prefix request's reply means: the summary, a cancel, or pi's own compaction.

/// The live-prefix request's reply as the shim read it (crossing as four plain arguments: a typed object's
/// deserializer would cost the module more than this whole decision).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompactionReply<'a> {
    /// pi-ai's `stopReason` (`"stop"`, `"length"`, `"toolUse"`, `"error"`, `"aborted"`), or `None` when the
    /// request threw.
    pub stop_reason: Option<&'a str>,
    /// The reply's text blocks, joined.
    pub text: &'a str,
    /// The reply holds a tool call.
    pub tool_call: bool,
    /// pi's compaction signal was aborted (the user pressed Esc, or pi stopped the session).
    pub aborted: bool,
}

/// What a reply means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyVerdict {
    /// Use the text: return the compaction.
    Summary,
    /// The user stopped the compaction: cancel it (pi then reports it cancelled); never a cold request.
    Cancel,
    /// Unusable: leave the compaction to pi's own request (reason `failed`).
    Fallback,
}

impl ReplyVerdict {
    /// `"summary"`, `"cancel"` or `"fallback"`.
    pub fn name(self) -> &'static str {
        match self {
            ReplyVerdict::Summary => "summary",
            ReplyVerdict::Cancel => "cancel",
            ReplyVerdict::Fallback => "fallback",
        }
    }
}

/// Judges the reply. An abort is the user's (or pi's) decision to stop and is honoured whatever the reply
/// says; a reply cut at its output limit is unusable, as pi's own compaction refuses one (a partial
/// checkpoint must not replace the conversation).
pub fn reply_verdict(r: &CompactionReply<'_>) -> ReplyVerdict {
    if r.aborted {
        return ReplyVerdict::Cancel;
    }
    let stop_ok = r.stop_reason == Some("stop");
    if !stop_ok || r.tool_call || r.text.trim().is_empty() {
        return ReplyVerdict::Fallback;
    }
    ReplyVerdict::Summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_judged_and_an_abort_is_never_a_fallback() {
        let r = |stop_reason: Option<&'static str>, text: &'static str, tool_call, aborted| CompactionReply { stop_reason, text, tool_call, aborted };
        assert_eq!(reply_verdict(&r(Some("stop"), "## Goal\nx", false, false)), ReplyVerdict::Summary);
        assert_eq!(reply_verdict(&r(Some("stop"), "  \n", false, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("error"), "partial", false, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("length"), "## Goal\ncut", false, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("toolUse"), "text", true, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("stop"), "text", true, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(None, "", false, false)), ReplyVerdict::Fallback, "the request threw");
        assert_eq!(reply_verdict(&r(Some("aborted"), "", false, true)), ReplyVerdict::Cancel);
        assert_eq!(reply_verdict(&r(Some("stop"), "## Goal\nx", false, true)), ReplyVerdict::Cancel, "Esc after the reply still cancels");
        assert_eq!(reply_verdict(&r(None, "", false, true)), ReplyVerdict::Cancel);
        // pi-ai says `aborted` without the signal: not the user's; pi's own compaction follows.
        assert_eq!(reply_verdict(&r(Some("aborted"), "", false, false)), ReplyVerdict::Fallback);
        assert_eq!([ReplyVerdict::Summary, ReplyVerdict::Cancel, ReplyVerdict::Fallback].map(ReplyVerdict::name), ["summary", "cancel", "fallback"]);
    }
}
