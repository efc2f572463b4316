//! Grapheme clusters as DuckDB 2.0's (utf8proc, of Unicode 15.1), for `reverse`.
//!
//! unicode-segmentation 1.11 clusters by Unicode 15.1's data, as utf8proc does, but without
//! rule GB9c (no break inside an Indic conjunct: a consonant, a virama and a consonant, with
//! combining marks between). [`clusters`] joins its clusters where GB9c holds, with utf8proc's
//! state machine and Unicode 15.1's `Indic_Conjunct_Break` property (the tables below, printed
//! by `scripts/incb_table.py` from DuckDB's answers). utf8proc also clusters the unassigned
//! code points that Unicode's defaults make pictographs or controls as other characters; so
//! does [`clusters`]. Later versions of unicode-segmentation follow later versions of Unicode,
//! which cluster the marks they added and some older ones differently from DuckDB.
//! `scripts/text_func_check.py` compares `reverse` of every code point, among others that
//! cluster, with DuckDB's.

use unicode_segmentation::UnicodeSegmentation;

/// A character's `Indic_Conjunct_Break` (Unicode 15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Icb {
    None,
    Linker,
    Consonant,
    Extend,
}

fn icb(c: char) -> Icb {
    let c = c as u32;
    let has = |t: &[(u32, u32)]| within(t, c);
    if c < 0x300 {
        Icb::None
    } else if has(LINKER) {
        Icb::Linker
    } else if has(CONSONANT) {
        Icb::Consonant
    } else if has(EXTEND) {
        Icb::Extend
    } else {
        Icb::None
    }
}

/// utf8proc's conjunct state after a character of `next` following `state`.
fn step(state: Icb, next: Icb) -> Icb {
    match (state, next) {
        (_, Icb::Consonant) | (Icb::Consonant | Icb::Extend, _) => next,
        (Icb::Linker, Icb::Extend) => Icb::Linker,
        (Icb::Linker, _) => next,
        (Icb::None, _) => Icb::None,
    }
}

/// Whether `c` is a code point Unicode 15.1 leaves unassigned and its defaults make a
/// pictograph or a control, which utf8proc clusters as any other character ([`OTHER`] also
/// holds assigned other characters beside them).
fn other(c: char) -> bool {
    let c = c as u32;
    c >= 0x2065 && within(OTHER, c)
}

/// Whether `c` is in one of the sorted ranges `t`.
fn within(t: &[(u32, u32)], c: u32) -> bool {
    t.binary_search_by(|&(a, b)| {
        if b < c {
            std::cmp::Ordering::Less
        } else if a > c {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    })
    .is_ok()
}

/// The extended grapheme clusters of `s`, in order, as DuckDB's.
pub(super) fn clusters(s: &str) -> Vec<&str> {
    if !s.chars().any(other) {
        return conjoined(s);
    }
    // Cluster a copy with those characters written as a letter, then cut `s` alike.
    let copy: String = s.chars().map(|c| if other(c) { 'A' } else { c }).collect();
    let starts: Vec<usize> = s
        .char_indices()
        .map(|(at, _)| at)
        .chain([s.len()])
        .collect();
    let mut from = 0;
    conjoined(&copy)
        .into_iter()
        .map(|g| {
            let to = from + g.chars().count();
            let piece = &s[starts[from]..starts[to]];
            from = to;
            piece
        })
        .collect()
}

/// The clusters of `s` by unicode-segmentation, joined where GB9c holds.
fn conjoined(s: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    // The start of the cluster being built and its conjunct state.
    let mut start = 0;
    let mut state = Icb::None;
    for (at, g) in s.grapheme_indices(true) {
        let mut chars = g.chars();
        let first = chars.next().map_or(Icb::None, icb);
        if at > 0 && !(state == Icb::Linker && first == Icb::Consonant) {
            out.push(&s[start..at]);
            start = at;
            state = Icb::None;
        }
        state = if at == start {
            // A cluster's first character starts the state, a consonant only.
            if first == Icb::Consonant {
                first
            } else {
                Icb::None
            }
        } else {
            step(state, first)
        };
        for c in chars {
            state = step(state, icb(c));
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// `Indic_Conjunct_Break=Linker`: the viramas that join two consonants.
#[rustfmt::skip]
const LINKER: &[(u32, u32)] = &[
    (0x94D, 0x94D), (0x9CD, 0x9CD), (0xACD, 0xACD), (0xB4D, 0xB4D), (0xC4D, 0xC4D),
    (0xD4D, 0xD4D),
];
/// `Indic_Conjunct_Break=Consonant`.
#[rustfmt::skip]
const CONSONANT: &[(u32, u32)] = &[
    (0x915, 0x939), (0x958, 0x95F), (0x978, 0x97F), (0x995, 0x9A8), (0x9AA, 0x9B0),
    (0x9B2, 0x9B2), (0x9B6, 0x9B9), (0x9DC, 0x9DD), (0x9DF, 0x9DF), (0x9F0, 0x9F1),
    (0xA95, 0xAA8), (0xAAA, 0xAB0), (0xAB2, 0xAB3), (0xAB5, 0xAB9), (0xAF9, 0xAF9),
    (0xB15, 0xB28), (0xB2A, 0xB30), (0xB32, 0xB33), (0xB35, 0xB39), (0xB5C, 0xB5D),
    (0xB5F, 0xB5F), (0xB71, 0xB71), (0xC15, 0xC28), (0xC2A, 0xC39), (0xC58, 0xC5A),
    (0xD15, 0xD3A),
];
/// `Indic_Conjunct_Break=Extend`: the marks that may stand beside a linker.
#[rustfmt::skip]
const EXTEND: &[(u32, u32)] = &[
    (0x300, 0x34E), (0x350, 0x36F), (0x483, 0x487), (0x591, 0x5BD), (0x5BF, 0x5BF),
    (0x5C1, 0x5C2), (0x5C4, 0x5C5), (0x5C7, 0x5C7), (0x610, 0x61A), (0x64B, 0x65F),
    (0x670, 0x670), (0x6D6, 0x6DC), (0x6DF, 0x6E4), (0x6E7, 0x6E8), (0x6EA, 0x6ED),
    (0x711, 0x711), (0x730, 0x74A), (0x7EB, 0x7F3), (0x7FD, 0x7FD), (0x816, 0x819),
    (0x81B, 0x823), (0x825, 0x827), (0x829, 0x82D), (0x859, 0x85B), (0x898, 0x89F),
    (0x8CA, 0x8E1), (0x8E3, 0x8FF), (0x93C, 0x93C), (0x951, 0x954), (0x9BC, 0x9BC),
    (0x9FE, 0x9FE), (0xA3C, 0xA3C), (0xABC, 0xABC), (0xB3C, 0xB3C), (0xC3C, 0xC3C),
    (0xC55, 0xC56), (0xCBC, 0xCBC), (0xD3B, 0xD3C), (0xE38, 0xE3A), (0xE48, 0xE4B),
    (0xEB8, 0xEBA), (0xEC8, 0xECB), (0xF18, 0xF19), (0xF35, 0xF35), (0xF37, 0xF37),
    (0xF39, 0xF39), (0xF71, 0xF72), (0xF74, 0xF74), (0xF7A, 0xF7D), (0xF80, 0xF80),
    (0xF82, 0xF84), (0xF86, 0xF87), (0xFC6, 0xFC6), (0x1037, 0x1037), (0x1039, 0x103A),
    (0x108D, 0x108D), (0x135D, 0x135F), (0x1714, 0x1714), (0x17D2, 0x17D2), (0x17DD, 0x17DD),
    (0x18A9, 0x18A9), (0x1939, 0x193B), (0x1A17, 0x1A18), (0x1A60, 0x1A60), (0x1A75, 0x1A7C),
    (0x1A7F, 0x1A7F), (0x1AB0, 0x1ABD), (0x1ABF, 0x1ACE), (0x1B34, 0x1B34), (0x1B6B, 0x1B73),
    (0x1BAB, 0x1BAB), (0x1BE6, 0x1BE6), (0x1C37, 0x1C37), (0x1CD0, 0x1CD2), (0x1CD4, 0x1CE0),
    (0x1CE2, 0x1CE8), (0x1CED, 0x1CED), (0x1CF4, 0x1CF4), (0x1CF8, 0x1CF9), (0x1DC0, 0x1DFF),
    (0x200D, 0x200D), (0x20D0, 0x20DC), (0x20E1, 0x20E1), (0x20E5, 0x20F0), (0x2CEF, 0x2CF1),
    (0x2D7F, 0x2D7F), (0x2DE0, 0x2DFF), (0x302A, 0x302F), (0x3099, 0x309A), (0xA66F, 0xA66F),
    (0xA674, 0xA67D), (0xA69E, 0xA69F), (0xA6F0, 0xA6F1), (0xA82C, 0xA82C), (0xA8E0, 0xA8F1),
    (0xA92B, 0xA92D), (0xA9B3, 0xA9B3), (0xAAB0, 0xAAB0), (0xAAB2, 0xAAB4), (0xAAB7, 0xAAB8),
    (0xAABE, 0xAABF), (0xAAC1, 0xAAC1), (0xAAF6, 0xAAF6), (0xABED, 0xABED), (0xFB1E, 0xFB1E),
    (0xFE20, 0xFE2F), (0x101FD, 0x101FD), (0x102E0, 0x102E0), (0x10376, 0x1037A),
    (0x10A0D, 0x10A0D), (0x10A0F, 0x10A0F), (0x10A38, 0x10A3A), (0x10A3F, 0x10A3F),
    (0x10AE5, 0x10AE6), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10EFD, 0x10EFF),
    (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070), (0x1107F, 0x1107F),
    (0x110BA, 0x110BA), (0x11100, 0x11102), (0x11133, 0x11134), (0x11173, 0x11173),
    (0x111CA, 0x111CA), (0x11236, 0x11236), (0x112E9, 0x112EA), (0x1133B, 0x1133C),
    (0x11366, 0x1136C), (0x11370, 0x11374), (0x11446, 0x11446), (0x1145E, 0x1145E),
    (0x114C3, 0x114C3), (0x115C0, 0x115C0), (0x116B7, 0x116B7), (0x1172B, 0x1172B),
    (0x1183A, 0x1183A), (0x1193E, 0x1193E), (0x11943, 0x11943), (0x11A34, 0x11A34),
    (0x11A47, 0x11A47), (0x11A99, 0x11A99), (0x11D42, 0x11D42), (0x11D44, 0x11D45),
    (0x11D97, 0x11D97), (0x11F42, 0x11F42), (0x16AF0, 0x16AF4), (0x16B30, 0x16B36),
    (0x1BC9E, 0x1BC9E), (0x1D165, 0x1D165), (0x1D167, 0x1D169), (0x1D16E, 0x1D172),
    (0x1D17B, 0x1D182), (0x1D185, 0x1D18B), (0x1D1AA, 0x1D1AD), (0x1D242, 0x1D244),
    (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024),
    (0x1E026, 0x1E02A), (0x1E08F, 0x1E08F), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF), (0x1E4EC, 0x1E4EF), (0x1E8D0, 0x1E8D6), (0x1E944, 0x1E94A),
];
/// Unassigned pictographs and controls that utf8proc takes for other characters.
#[rustfmt::skip]
const OTHER: &[(u32, u32)] = &[
    (0x2065, 0x2065), (0xFFF0, 0xFFF8), (0x1F02C, 0x1F02F), (0x1F094, 0x1F09F),
    (0x1F0AF, 0x1F0B0), (0x1F0C0, 0x1F0C0), (0x1F0D0, 0x1F0D0), (0x1F0F6, 0x1F10C),
    (0x1F110, 0x1F12E), (0x1F130, 0x1F16B), (0x1F172, 0x1F17D), (0x1F180, 0x1F18D),
    (0x1F18F, 0x1F190), (0x1F19B, 0x1F1AC), (0x1F1AE, 0x1F1E5), (0x1F200, 0x1F200),
    (0x1F203, 0x1F219), (0x1F21B, 0x1F22E), (0x1F230, 0x1F231), (0x1F23B, 0x1F24F),
    (0x1F252, 0x1F25F), (0x1F266, 0x1F2FF), (0x1F53E, 0x1F545), (0x1F650, 0x1F67F),
    (0x1F6D8, 0x1F6DB), (0x1F6ED, 0x1F6EF), (0x1F6FD, 0x1F773), (0x1F777, 0x1F77A),
    (0x1F780, 0x1F7D4), (0x1F7DA, 0x1F7DF), (0x1F7EC, 0x1F7EF), (0x1F7F1, 0x1F8AF),
    (0x1F8B2, 0x1F90B), (0x1F93B, 0x1F93B), (0x1F946, 0x1F946), (0x1FA54, 0x1FA5F),
    (0x1FA6E, 0x1FA6F), (0x1FA7D, 0x1FA7F), (0x1FA89, 0x1FA8F), (0x1FABE, 0x1FABE),
    (0x1FAC6, 0x1FACD), (0x1FADC, 0x1FADF), (0x1FAE9, 0x1FAEF), (0x1FAF9, 0x1FFFD),
    (0xE0000, 0xE0000), (0xE0002, 0xE001F), (0xE0080, 0xE00FF), (0xE01F0, 0xE0FFF),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conjuncts_are_one_cluster_as_in_duckdb() {
        // DuckDB 2.0.1's length_grapheme of each.
        for (s, n) in [
            ("\u{915}\u{94d}\u{937}", 1),
            ("\u{915}\u{93c}\u{94d}\u{937}", 1),
            ("\u{915}\u{94d}\u{200d}\u{937}", 1),
            ("\u{915}\u{94d}\u{900}\u{915}", 2),
            ("\u{915}\u{900}\u{94d}\u{915}", 2),
            ("\u{915}\u{94d}\u{941}\u{915}", 2),
            ("\u{995}\u{9cd}\u{9b7}\u{995}", 2),
            ("\u{915}\u{94d}\u{995}", 1),
            ("a\u{94d}\u{915}", 2),
            ("\u{94d}\u{915}", 2),
            ("e\u{301}x", 2),
            ("\u{1f1eb}\u{1f1f7}\u{1f1e9}", 2),
            // (DuckDB reverses and counts a string of ASCII alone by its characters.)
            ("\r\n\u{e9}", 2),
            ("", 0),
            // Unassigned pictographs and controls are other characters, as in utf8proc.
            ("\u{1fc00}\u{200d}\u{1fc00}", 2),
            ("\u{e0002}\u{301}", 1),
            ("\u{1f600}\u{200d}\u{1f600}", 1),
        ] {
            assert_eq!(clusters(s).len(), n, "{s:?}: {:?}", clusters(s));
            assert_eq!(clusters(s).concat(), s);
        }
    }

    #[test]
    fn tables_are_sorted_ranges() {
        for t in [LINKER, CONSONANT, EXTEND, OTHER] {
            assert!(t.iter().all(|&(a, b)| a <= b));
            assert!(t.windows(2).all(|w| w[0].1 < w[1].0));
        }
    }
}
