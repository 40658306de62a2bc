//! Unit tests of the arithmetic constants parser (expression evaluation is
//! covered end to end in `shell/tests/expand_diff.rs`).

use super::parse_integer;

#[test]
fn integer_constants_in_every_base() {
    assert_eq!(parse_integer("42"), Some(42));
    assert_eq!(parse_integer(" -7 "), Some(-7));
    assert_eq!(parse_integer("0x1F"), Some(31));
    assert_eq!(parse_integer("017"), Some(15));
    assert_eq!(parse_integer("8#17"), Some(15));
    assert_eq!(parse_integer("36#z"), Some(35));
    assert_eq!(parse_integer("64#@"), Some(62));
    assert_eq!(parse_integer("64#_"), Some(63));
    assert_eq!(parse_integer("2#102"), None);
    assert_eq!(parse_integer("08"), None);
    assert_eq!(parse_integer("1a"), None);
    assert_eq!(parse_integer("abc"), None);
    assert_eq!(parse_integer(""), None);
    // Wraps like bash's 64-bit integers.
    assert_eq!(parse_integer("9223372036854775808"), Some(i64::MIN));
}
