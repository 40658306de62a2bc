//! Unit tests of pattern matching (checked against bash 5.2's behaviour).

use super::{MatchOptions, Pattern, escape, has_glob_chars, matches};

const PLAIN: MatchOptions = MatchOptions {
    extglob: false,
    nocase: false,
};
const EXT: MatchOptions = MatchOptions {
    extglob: true,
    nocase: false,
};

#[test]
fn wildcards_and_classes() {
    assert!(matches("*.txt", "a.txt", PLAIN));
    assert!(!matches("*.txt", "a.txt.bak", PLAIN));
    assert!(matches("a?c", "abc", PLAIN));
    assert!(!matches("a?c", "ac", PLAIN));
    assert!(matches("[abc]x", "bx", PLAIN));
    assert!(matches("[!abc]x", "dx", PLAIN));
    assert!(matches("[^abc]x", "dx", PLAIN));
    assert!(!matches("[!abc]x", "ax", PLAIN));
    assert!(matches("[a-c]", "b", PLAIN));
    assert!(matches("[]]", "]", PLAIN));
    assert!(matches("[!]]", "a", PLAIN));
    assert!(matches("[[:digit:]][[:alpha:]]", "1z", PLAIN));
    assert!(!matches("[[:upper:]]", "a", PLAIN));
    assert!(matches("*", "", PLAIN));
    assert!(matches("*/b", "a/b", PLAIN));
    // An unterminated bracket is a literal `[`.
    assert!(matches("[ab", "[ab", PLAIN));
}

#[test]
fn escapes_are_literal() {
    assert!(matches(r"\*", "*", PLAIN));
    assert!(!matches(r"\*", "a", PLAIN));
    assert!(matches(r"a\?", "a?", PLAIN));
    assert!(matches(&escape("a*b[c]"), "a*b[c]", PLAIN));
    assert!(!has_glob_chars(r"a\*b", false));
    assert!(has_glob_chars("a*b", false));
    assert!(has_glob_chars("@(a)", true));
    assert!(!has_glob_chars("@(a)", false));
}

#[test]
fn nocase() {
    let o = MatchOptions {
        extglob: false,
        nocase: true,
    };
    assert!(matches("ABC*", "abcdef", o));
    assert!(matches("[a-c]x", "BX", o));
}

#[test]
fn extglob_groups() {
    assert!(matches("@(foo|bar).txt", "bar.txt", EXT));
    assert!(!matches("@(foo|bar).txt", "baz.txt", EXT));
    assert!(matches("!(foo).txt", "bar.txt", EXT));
    assert!(!matches("!(foo).txt", "foo.txt", EXT));
    assert!(matches("+(ab)", "ababab", EXT));
    assert!(!matches("+(ab)", "", EXT));
    assert!(matches("*(ab)", "", EXT));
    assert!(matches("?(x)y", "y", EXT));
    assert!(matches("?(x)y", "xy", EXT));
    assert!(!matches("?(x)y", "xxy", EXT));
    assert!(matches("*.!(bak)", "a.txt", EXT));
    // Without extglob the parentheses are literal characters.
    assert!(matches("@(a)", "@(a)", PLAIN));
}

#[test]
fn prefix_and_suffix_removal() {
    let t: Vec<char> = "a/b/c.tar.gz".chars().collect();
    let star_slash = Pattern::new("*/", PLAIN);
    assert_eq!(star_slash.strip_prefix_len(&t, false), Some(2));
    assert_eq!(star_slash.strip_prefix_len(&t, true), Some(4));
    let dot_star = Pattern::new(".*", PLAIN);
    assert_eq!(dot_star.strip_suffix_len(&t, false), Some(3));
    assert_eq!(dot_star.strip_suffix_len(&t, true), Some(7));
    let ext = Pattern::new("+(a)", EXT);
    let aab: Vec<char> = "aab".chars().collect();
    assert_eq!(ext.strip_prefix_len(&aab, false), Some(1));
    assert_eq!(ext.strip_prefix_len(&aab, true), Some(2));
    assert_eq!(Pattern::new("x", PLAIN).strip_prefix_len(&aab, true), None);
}

#[test]
fn find_is_leftmost_longest() {
    let t: Vec<char> = "xaabaa".chars().collect();
    assert_eq!(Pattern::new("a*", PLAIN).find(&t, 0), Some((1, 6)));
    assert_eq!(Pattern::new("a", PLAIN).find(&t, 3), Some((4, 5)));
    assert_eq!(Pattern::new("z", PLAIN).find(&t, 0), None);
}
