"""Print the Rust tables of src/expr/grapheme.rs: Unicode 15.1's Indic_Conjunct_Break property
as DuckDB's grapheme clusters (utf8proc) use it, read from the installed DuckDB.

Usage: incb_table.py

A code point is a Linker when it joins two consonants (क c क is one cluster), Extend when
it may stand between a linker and a consonant (क् c क is one), and a Consonant when it joins
a linker (क् c is one) but not a letter (a c is two). OTHER lists the unassigned code points
that Unicode's defaults make pictographs or controls (U+2060..U+206F, U+FFF0..U+FFF8,
U+E0000..U+E0FFF, U+1F000..U+1FFFD) which DuckDB clusters as any other character.
`scripts/text_func_check.py` compares reverse() of every code point with DuckDB's."""
import duckdb

con = duckdb.connect()
con.execute("CREATE TABLE cps AS SELECT i::INTEGER AS cp, chr(i::INTEGER) AS ch FROM range(128, 1114112) t(i) "
            "WHERE i < 55296 OR i > 57343")


def ranges(where):
    rs = []
    for (c,) in con.execute(f"SELECT cp FROM cps WHERE {where} ORDER BY cp").fetchall():
        if rs and rs[-1][1] == c - 1:
            rs[-1][1] = c
        else:
            rs.append([c, c])
    return rs


KA, VIRAMA = "\u0915", "\u094d"
tables = {
    "LINKER": ranges(f"length_grapheme('{KA}' || ch || '{KA}') = 1"),
    "CONSONANT": ranges(f"length_grapheme('{KA}{VIRAMA}' || ch) = 1 AND length_grapheme('a' || ch) = 2"),
    "EXTEND": ranges(f"length_grapheme('{KA}{VIRAMA}' || ch || '{KA}') = 1 "
                     f"AND length_grapheme('{KA}' || ch || '{KA}') = 2"),
    # Where Unicode gives unassigned code points Extended_Pictographic or Control by default,
    # the ones DuckDB clusters as other characters: an accent joins them; a ZWJ, a letter or
    # another of them does not (regional indicators pair, for one).
    "OTHER": ranges("(cp BETWEEN 8288 AND 8303 OR cp BETWEEN 65520 AND 65528 OR cp BETWEEN 917504 AND 921599 "
                    "OR cp BETWEEN 126976 AND 131069) AND length_grapheme(ch || '\u0301') = 1 "
                    "AND length_grapheme(ch || '\u200d' || ch) = 2 AND length_grapheme(ch || ch) = 2 "
                    "AND length_grapheme(ch || 'a') = 2 AND length_grapheme('a' || ch) = 2"),
}
DOCS = {
    "LINKER": "`Indic_Conjunct_Break=Linker`: the viramas that join two consonants.",
    "CONSONANT": "`Indic_Conjunct_Break=Consonant`.",
    "EXTEND": "`Indic_Conjunct_Break=Extend`: the marks that may stand beside a linker.",
    "OTHER": "Unassigned pictographs and controls that utf8proc takes for other characters.",
}
for name, rs in tables.items():
    print(f"/// {DOCS[name]}")
    print("#[rustfmt::skip]")
    print(f"const {name}: &[(u32, u32)] = &[")
    line = "   "
    for a, b in rs:
        item = f" (0x{a:X}, 0x{b:X}),"
        if len(line) + len(item) > 96:
            print(line)
            line = "   "
        line += item
    print(line)
    print("];")
