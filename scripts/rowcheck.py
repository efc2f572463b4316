"""What the row-by-row checks against DuckDB share (date_func_check.py, text_func_check.py,
strtime_check.py): `bloomjoin train --where` over a Parquet file of values and DuckDB's
answers beside them, counting the rows where a condition holds."""
import json
import os
import subprocess


def rows_passing(bin_, f, where, out):
    """The rows of `f` (key column `id`) where `where` holds, by `bloomjoin train --where`
    (its files in `out`); bloomjoin's error text when it fails."""
    report = os.path.join(out, "r.json")
    run = subprocess.run([bin_, "-q", "train", "-i", f, "-c", "id", "--where", where, "-o",
                          os.path.join(out, "x.bjf"), "--overwrite", "--report", report],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return f"bloomjoin exited {run.returncode}: {run.stderr.strip()}"
    return json.load(open(report))["rows_passing_where"]


def differing(bin_, f, out, exprs, shown=lambda e: ""):
    """How many of `exprs` differ on some row of `f` from their column `want_<i>` of DuckDB's
    answers (IS DISTINCT FROM, so NULL meets NULL): all at once first, then each alone, printed
    with its count of rows (and `shown(e)`, what DuckDB was asked, when that differs)."""
    same = " AND ".join(f"({e}) IS NOT DISTINCT FROM want_{i}" for i, e in enumerate(exprs))
    first = rows_passing(bin_, f, f"NOT ({same})", out)
    if isinstance(first, str):
        print(f"FAILED: {first}")
        return 1
    failed = 0
    if first:
        for i, e in enumerate(exprs):
            rows = rows_passing(bin_, f, f"({e}) IS DISTINCT FROM want_{i}", out)
            if rows:
                failed += 1
                print(f"FAILED {e}: {rows} rows differ from DuckDB's{shown(e)}")
    return failed
