//! Host profiles: the rules of context building and token estimation that differ between pi
//! generations, chosen once per session. Each difference is one named rule here, never a version test scattered through the core
//! (docs/hosts.md lists each rule, the pi version that introduced it and the test that proves it).
//!
//! In pi the shim sets the profile from the running host's version before the first entry is fed
//! (`SessionIndex::set_profile`). The CLI and the viewer infer it from the session itself: a
//! `role:"system"` message entry (written by pi ≥0.87 as the first message of every session) switches an
//! index that was not given a profile to [`Profile::Pi087`]; `--host <version>` overrides.
//!
//! Rules shared by every profile (not differences), both pi ≥0.87's, applied on every host because the
//! older hosts' rule makes the tool's numbers useless (README, "Hosts"):
//! - the usage an estimate anchors on must have `calculateContextTokens(usage) > 0`. pi 0.74–0.86 anchors
//!   on a zero usage too, which makes a session from a provider that reports zero usage estimate as ~0
//!   tokens and refuses every rewind;
//! - usage recorded before the branch's latest `compaction` or `context_edit` is not trusted
//!   (`estimateProjectedContextTokens`, behind pi ≥0.87's `getContextUsage()`); the estimate is then
//!   every message of the context counted. pi 0.74–0.86 anchors on a kept assistant's pre-compaction usage
//!   (11,974 tokens for a compacted context of ~1,000) where its own footer shows nothing.

use super::entry::{Facts, Kind, RoleKind};
use super::read::ceil_quarter;

/// Tokens an image block adds where a profile counts it (`ESTIMATED_IMAGE_CHARS` 4800 / 4).
const IMAGE_TOKENS: f64 = 1200.0;

/// One pi generation's estimation rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// pi 0.74–0.86 (`buildSessionContext`, `estimateContextTokens`): `role:"system"` message entries
    /// and images in user messages count 0; no `context_edit`, no compaction `systemMessage`.
    #[default]
    Pi074,
    /// pi 0.87–1.4 (0.87.1, 0.99.1, 1.0.3, 1.3.0: the same `buildSessionProjection`, `estimateTokens` and
    /// `estimateProjectedContextTokens` as 1.5+): every rule below but the last.
    Pi087,
    /// pi ≥1.5 (1.5.2, 1.6.0): the context and estimates of [`Profile::Pi087`], and a branch summary that
    /// honours `context_edit`s ([`Profile::summary_files_honour_context_edits`]).
    Pi150,
}

/// How the index came by its profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProfileSource {
    /// Nothing said otherwise yet (the session has shown no sign of a newer pi).
    #[default]
    Default,
    /// Inferred from the session's contents (a `role:"system"` message entry).
    Inferred,
    /// Set by the caller (the running host's version, or `--host`).
    Set,
}

impl Profile {
    /// The profile of a pi version (`"1.5.2"`, `"0.87.1"`, a leading `v` allowed); `None` when the
    /// text is not a version.
    pub fn for_version(version: &str) -> Option<Profile> {
        let v = version.trim().trim_start_matches('v');
        let mut parts = v.split('.').map(|p| p.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("").parse::<u64>());
        let major = parts.next()?.ok()?;
        let minor = parts.next().unwrap_or(Ok(0)).ok()?;
        Some(match (major, minor) {
            v if v >= (1, 5) => Profile::Pi150,
            v if v >= (0, 87) => Profile::Pi087,
            _ => Profile::Pi074,
        })
    }

    /// The name `stats`, the viewer and `doctor` show.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Pi074 => "pi-0.74",
            Profile::Pi087 => "pi-0.87",
            Profile::Pi150 => "pi-1.5",
        }
    }

    /// Rule (pi ≥0.87): a `role:"system"` message (system prompt and tool declarations) counts its content,
    /// its `sections` and `JSON.stringify(toolsAdded)`.
    pub fn counts_system_messages(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥0.87): an image block in a user message counts 4800 characters, as everywhere else.
    pub fn counts_user_images(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥0.87, `sessionEntryToContextMessages` / `buildContextEntries`): a compaction emits its
    /// `systemMessage` (the system message in force when it was written) before its summary, and the
    /// kept entries before the compaction leave out their `role:"system"` messages.
    pub fn reemits_system_at_compaction(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥0.87, `buildSessionProjection`): among the context's entries, the latest `context_edit`
    /// per `targetId` replaces the content of that entry's user, assistant, toolResult or custom message
    /// (other roles keep theirs); a `null` replacement takes the entry's messages out of the context.
    pub fn applies_context_edits(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥0.87, `sessionEntryToContextMessages`): a message whose `content` is `null` or missing
    /// gets `""` (system) or `[]` (user, assistant, toolResult) in the built context.
    pub fn normalises_null_content(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥0.87, `loadEntriesFromFile` read line by line + `SessionManager.open`): a file whose first
    /// line `JSON.parse` takes is no session header (a leading byte-order mark included, which makes that
    /// line unreadable) is refused as "not a valid pi session"; older pi loads it as empty
    /// (`crate::file::not_a_session`).
    pub fn opens_only_files_led_by_a_header(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥0.87, `convertToLlm`): `role:"system"` messages reach the model (pi 0.75 drops them).
    pub fn sends_system_messages(self) -> bool {
        self != Profile::Pi074
    }

    /// Rule (pi ≥1.5, `prepareBranchEntries`): the files a branch summary lists (`<read-files>`,
    /// `<modified-files>`) come from the collapsed assistants' tool calls as the latest `context_edit` among
    /// the collapsed entries leaves them (a `null` replacement drops the message, a text one its calls).
    /// pi 0.74–1.4 reads the calls as stored.
    pub fn summary_files_honour_context_edits(self) -> bool {
        self == Profile::Pi150
    }

    /// The profile (and how it was chosen) once an entry of `kind` is read under this one: a
    /// `role:"system"` message entry, which only pi ≥0.87 writes, makes a session that was given no
    /// profile [`Profile::Pi087`]; anything else changes nothing.
    pub(super) fn seeing(self, source: ProfileSource, kind: Kind) -> (Profile, ProfileSource) {
        if source == ProfileSource::Default && kind == Kind::Message(RoleKind::System) {
            return (Profile::Pi087, ProfileSource::Inferred);
        }
        (self, source)
    }

    /// `estimateTokens` of the message an entry contributes, under this profile.
    pub fn tokens(self, facts: &Facts<'_>) -> f64 {
        match facts.kind {
            Kind::Message(RoleKind::System) if self.counts_system_messages() => ceil_quarter(facts.system_chars),
            Kind::Message(RoleKind::User) if self.counts_user_images() => facts.tokens + IMAGE_TOKENS * facts.images as f64,
            _ => facts.tokens,
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Mode, SessionIndex};

    #[test]
    fn versions_map_to_generations() {
        for (v, p) in [("0.74.2", Profile::Pi074), ("0.75.5", Profile::Pi074), ("0.86.9", Profile::Pi074), ("0.87.1", Profile::Pi087), ("0.99.1", Profile::Pi087), ("1.0.3", Profile::Pi087), ("1.4.9", Profile::Pi087), ("v1.5.2", Profile::Pi150), ("1.6.0", Profile::Pi150), ("2.0.0-beta.1", Profile::Pi150)] {
            assert_eq!(Profile::for_version(v), Some(p), "{v}");
        }
        assert_eq!(Profile::for_version("latest"), None);
    }

    #[test]
    fn only_a_system_message_in_a_session_given_no_profile_changes_it() {
        let system = Kind::Message(RoleKind::System);
        assert_eq!(Profile::Pi074.seeing(ProfileSource::Default, system), (Profile::Pi087, ProfileSource::Inferred));
        assert_eq!(Profile::Pi074.seeing(ProfileSource::Set, system), (Profile::Pi074, ProfileSource::Set));
        let user = Kind::Message(RoleKind::User);
        assert_eq!(Profile::Pi074.seeing(ProfileSource::Default, user), (Profile::Pi074, ProfileSource::Default));
    }

    const SYSTEM: &str = r#"{"type":"message","id":"s1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"system","content":"abcd","sections":{"a":"1234"},"toolsAdded":[{"name":"t"}]}}"#;
    const USER_IMAGE: &str = r#"{"type":"message","id":"u1","parentId":"s1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"x","mimeType":"image/png"}]}}"#;

    fn estimate(index: &mut SessionIndex) -> f64 {
        index.estimate(crate::session::Leaf::Current).unwrap().tokens
    }

    #[test]
    fn a_system_message_makes_the_profile_pi087() {
        let mut index = SessionIndex::new(Mode::Plugin);
        index.append_jsonl(&format!("{SYSTEM}\n{USER_IMAGE}\n"));
        assert_eq!(index.profile(), (Profile::Pi087, ProfileSource::Inferred));
        // system: ceil((4 + 4 + 14) / 4) = 6; user: ceil(2/4) + 1200.
        assert_eq!(estimate(&mut index), 6.0 + 1.0 + 1200.0);
    }

    #[test]
    fn a_set_profile_is_kept() {
        let mut index = SessionIndex::new(Mode::Plugin);
        index.set_profile(Profile::Pi074);
        index.append_jsonl(&format!("{SYSTEM}\n{USER_IMAGE}\n"));
        assert_eq!(index.profile(), (Profile::Pi074, ProfileSource::Set));
        assert_eq!(estimate(&mut index), 1.0);
    }
}
