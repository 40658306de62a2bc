//! Property test: the awk parser never panics, whatever text it is fed
//! (random bytes, and token soups built from awk's own vocabulary). Case
//! count from `PROPTEST_CASES` (default 2,000).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use crate::support::proptest_config;
use proptest::prelude::*;
use sandkeep_shell::testing::parse_awk as parse;

const VOCAB: &[&str] = &[
    "BEGIN",
    "END",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    "\n",
    ",",
    "$",
    "NF",
    "x",
    "a",
    "i",
    "1",
    "2.5",
    "\"s\"",
    "/re/",
    "/",
    "+",
    "-",
    "*",
    "%",
    "^",
    "**",
    "!",
    "~",
    "!~",
    "<",
    ">",
    ">>",
    "|",
    "==",
    "=",
    "+=",
    "++",
    "--",
    "?",
    ":",
    "&&",
    "||",
    "in",
    "if",
    "else",
    "while",
    "do",
    "for",
    "print",
    "printf",
    "getline",
    "delete",
    "next",
    "exit",
    "return",
    "function",
    "f(",
    "length",
    "substr(",
    "split(",
    "gsub(",
    "sprintf(",
    "\\\n",
    "#c\n",
    " ",
    "\"",
    "[[:alpha:]]",
];

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn parser_never_panics_on_bytes(s in ".{0,200}") {
        let _ = parse(&s);
    }

    #[test]
    fn parser_never_panics_on_token_soup(toks in proptest::collection::vec(0..VOCAB.len(), 0..60)) {
        let src: String = toks.iter().map(|i| VOCAB[*i]).collect::<Vec<_>>().join(" ");
        let _ = parse(&src);
    }
}
