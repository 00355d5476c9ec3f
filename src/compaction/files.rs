//! pi's file lists of a compaction (`details.readFiles`, `details.modifiedFiles`), carried across compactions
//! an extension wrote.

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use super::fields::{flag, texts};

/// pi's file operations of the compacted span (`preparation.fileOps`: its Sets as arrays).
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct FileOps {
    /// Paths read.
    pub read: Vec<String>,
    /// Paths written.
    pub written: Vec<String>,
    /// Paths edited.
    pub edited: Vec<String>,
}

/// The previous compaction on the branch, as far as its file lists go.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct PreviousCompaction {
    /// An extension supplied it.
    pub from_hook: bool,
    /// Its `details.readFiles`, when that is a list of strings.
    #[tsify(optional)]
    pub read_files: Option<Vec<String>>,
    /// Its `details.modifiedFiles`, when that is a list of strings.
    #[tsify(optional)]
    pub modified_files: Option<Vec<String>>,
}

impl FileOps {
    /// pi's file operations from the shim's `{read, written, edited}` (arrays of paths).
    pub fn from_json(v: &Value) -> Self {
        let list = |k| texts(v, k).unwrap_or_default();
        FileOps { read: list("read"), written: list("written"), edited: list("edited") }
    }
}

impl PreviousCompaction {
    /// The previous compaction from the shim's `{fromHook, readFiles, modifiedFiles}`.
    pub fn from_json(v: &Value) -> Self {
        PreviousCompaction { from_hook: flag(v, "fromHook").unwrap_or(false), read_files: texts(v, "readFiles"), modified_files: texts(v, "modifiedFiles") }
    }
}

/// A compaction's `details`, as pi's own compaction stores them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FileLists {
    /// Files read and not modified, sorted as JavaScript sorts strings.
    pub read_files: Vec<String>,
    /// Files written or edited, sorted.
    pub modified_files: Vec<String>,
}

/// What pi's own compaction would not carry over from `previous`: the lists of a compaction an extension
/// supplied (pi reads a previous compaction's `details` only when it wrote it itself). These go into pi's
/// `preparation.fileOps` before pi compacts on its own, and into ours, so the lists stay cumulative across
/// compactions whoever wrote them.
pub fn carried_files(previous: Option<&PreviousCompaction>) -> FileOps {
    match previous {
        Some(p) if p.from_hook => FileOps {
            read: p.read_files.clone().unwrap_or_default(),
            written: Vec::new(),
            edited: p.modified_files.clone().unwrap_or_default(),
        },
        _ => FileOps::default(),
    }
}

/// pi's `computeFileLists` over `ops` plus what [`carried_files`] adds: modified = edited ∪ written, read =
/// read − modified, both sorted by UTF-16 code units (JavaScript's default sort) without repeats.
pub fn compaction_files(ops: &FileOps, previous: Option<&PreviousCompaction>) -> FileLists {
    let carried = carried_files(previous);
    let mut modified: Vec<String> = ops.edited.iter().chain(&ops.written).chain(&carried.edited).cloned().collect();
    crate::js::sort_js_strings(&mut modified);
    let mut read: Vec<String> = ops.read.iter().chain(&carried.read).filter(|f| !modified.contains(f)).cloned().collect();
    crate::js::sort_js_strings(&mut read);
    FileLists { read_files: read, modified_files: modified }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_lists_are_pis_and_carry_an_extensions_previous_lists() {
        let ops = FileOps { read: vec!["src/b.rs".into(), "src/a.rs".into(), "z".into()], written: vec!["out.txt".into()], edited: vec!["src/a.rs".into()] };
        let own = compaction_files(&ops, None);
        assert_eq!(own, FileLists { read_files: vec!["src/b.rs".into(), "z".into()], modified_files: vec!["out.txt".into(), "src/a.rs".into()] });
        // pi carries its own compaction's lists itself (they are in `ops` already): nothing added.
        let pis = PreviousCompaction { from_hook: false, read_files: Some(vec!["old.rs".into()]), modified_files: None };
        assert_eq!(compaction_files(&ops, Some(&pis)), own);
        assert_eq!(carried_files(Some(&pis)), FileOps::default());
        // An extension's (ours included): pi would drop them, so they are carried.
        let hook = PreviousCompaction { from_hook: true, read_files: Some(vec!["old.rs".into(), "z".into()]), modified_files: Some(vec!["src/b.rs".into()]) };
        let carried = compaction_files(&ops, Some(&hook));
        assert_eq!(carried.read_files, vec!["old.rs".to_string(), "z".into()]);
        assert_eq!(carried.modified_files, vec!["out.txt".to_string(), "src/a.rs".into(), "src/b.rs".into()]);
        assert_eq!(carried_files(Some(&hook)).edited, vec!["src/b.rs".to_string()]);
        assert_eq!(carried_files(None), FileOps::default());
    }

    #[test]
    fn files_sort_as_javascript_sorts_strings() {
        // U+FF5E (one UTF-16 unit, 0xFF5E) sorts after U+1F600 (surrogates 0xD83D…) in JavaScript; by UTF-8
        // bytes it would come first.
        let ops = FileOps { read: vec!["\u{FF5E}".into(), "\u{1F600}".into(), "a".into(), "a".into()], ..FileOps::default() };
        assert_eq!(compaction_files(&ops, None).read_files, vec!["a".to_string(), "\u{1F600}".into(), "\u{FF5E}".into()]);
    }
}
