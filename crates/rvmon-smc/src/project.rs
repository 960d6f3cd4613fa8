//! Paper 28's projection (Def. 4): a step's propositions intersected with the support `V` of
//! the property (the propositions it reads), so that the learner sees only what the property
//! can tell apart. A label `p&q` holds the propositions p and q; a step left with none is `-`
//! (the paper's τ).

/// `label` projected onto `keep`: its propositions in `keep`, sorted and `&`-joined, or `-`.
pub fn project(label: &str, keep: &[String]) -> String {
    let mut kept: Vec<&str> = label
        .split('&')
        .filter(|p| keep.iter().any(|k| k == p))
        .collect();
    kept.sort_unstable();
    kept.dedup();
    if kept.is_empty() {
        "-".to_string()
    } else {
        kept.join("&")
    }
}

/// Every step of every sequence projected onto `keep`.
pub fn project_all<S: AsRef<str>>(sequences: &[Vec<S>], keep: &[String]) -> Vec<Vec<String>> {
    sequences
        .iter()
        .map(|s| s.iter().map(|l| project(l.as_ref(), keep)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note's example: T projected onto {won} and onto {won, lost}.
    #[test]
    fn the_craps_traces() {
        let t = [
            "start won",
            "start lost lost",
            "start point5",
            "start point9 point9",
        ];
        let on = |keep: &[&str]| -> Vec<String> {
            let keep: Vec<String> = keep.iter().map(|k| k.to_string()).collect();
            t.iter()
                .map(|s| {
                    let steps: Vec<&str> = s.split(' ').collect();
                    steps
                        .iter()
                        .map(|l| project(l, &keep))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        };
        assert_eq!(on(&["won"]), ["- won", "- - -", "- -", "- - -"]);
        assert_eq!(
            on(&["won", "lost"]),
            ["- won", "- lost lost", "- -", "- - -"]
        );
        assert_eq!(project("b&a&c", &["c".into(), "a".into()]), "a&c");
    }
}
