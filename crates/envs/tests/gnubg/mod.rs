//! What the tests against GNU Backgammon's goldens (`data/gnubg_*.txt`)
//! share.

/// The lines of a golden file, comments left out.
pub fn golden_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.starts_with('#'))
}

/// Fails unless there were at least `at_least` goldens and none of the
/// `checked` disagreed with gnubg; shows the first few of `wrong`.
#[track_caller]
pub fn assert_all_agree(checked: usize, at_least: usize, wrong: &[String]) {
    assert!(checked >= at_least, "{checked} goldens, expected at least {at_least}");
    assert!(
        wrong.is_empty(),
        "{} of {checked} disagree with gnubg, e.g. {:#?}",
        wrong.len(),
        &wrong[..wrong.len().min(3)]
    );
}
