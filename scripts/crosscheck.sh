#!/usr/bin/env bash
# Cross-check bloomjoin's join against DuckDB's on the same Parquet: for every job file, and
# for every join type (inner, left, left-semi, left-anti, right, right-semi, right-anti, full) with an integer key
# (users.Id = comments.UserId: Int64 against Int32) and a string key (users.DisplayName =
# comments.UserDisplayName) under both strategies (replicated, reduce-side), on data/sample, which has null keys and duplicate keys on both
# sides, and reduce-side partitions over the memory budget (joined in passes); every output codec (DuckDB reads the parts);
# outputs in files and row groups of bounded rows and bytes; every key type pair (scripts/keytypes_check.py: integers of mixed widths and
# signedness, decimal scales, timestamp units, strings and binary, and (id, timestamp) tuples of
# mixed widths and units) for every join type; and a
# composite key, TPC-H lineitem x partsupp on (partkey, suppkey) with a selective --where on
# partsupp (scale 0.01, generated into .cache/tpch/sf0.01), for every join type; and the
# other joins of the benchmark (lineitem x part, lineitem x orders, orders x customer) with
# every column of both sides, for every join type under both strategies; and sides whose files
# have different columns (unioned by name, as DuckDB's union_by_name), for every join type;
# and sides in Hive partition directories, their values read as columns, for every join type,
# with keys of file and partition columns and of partition columns alone;
# and outputs written into Hive partition directories (--partition-by), read back by DuckDB;
# and null keys matching each other (--nulls-equal) against DuckDB's IS NOT DISTINCT FROM, and
# key pairs as one column (--coalesce-keys) against DuckDB's COALESCE; and computed --select
# columns (`price * qty AS total`) against DuckDB's SELECT expressions; and an extra join
# condition over both sides' columns (--join-where) in DuckDB's ON clause, every join type
# (bjcheck.py: left./right. as DuckDB's aliases); and a second run into a
# committed output (--append, --overwrite-partitions) against both runs' rows in DuckDB; and
# the filter job (`bloomjoin filter`) against DuckDB's semi-join of the trained key set (every
# row of a trained key kept, nothing but input rows that pass --where, the others of keys outside
# the set and within a bound from the filter's fpp): integer, string and composite keys, a
# --where and a --select (computed and renamed columns too), a filter in Spark's format, TPC-H, Hive partitions and files of
# different columns; --where over TIME columns of every unit and their functions
# (scripts/where_time_check.py); CAST of strings to DATE, TIMESTAMP, TIME and TIMESTAMPTZ against
# DuckDB's casts of 20,000 generated strings (scripts/strtime_check.py); time zones by name,
# every name DuckDB knows and ICU's custom IDs, over 83,657 instants (scripts/zone_check.py); and the date
# functions (date_diff in every unit, last_day, the parts, epoch and epoch_ms/us/ns, julian,
# to_timestamp, make_date, strftime) against DuckDB's, row by row (scripts/date_func_check.py);
# strptime of mutated strings in 60 formats (scripts/strptime_check.py); and the string
# functions (split_part, lpad, reverse, levenshtein, ... and the older ones) over strings of
# accents, emoji, flags, Hangul and random characters (scripts/text_func_check.py).
# DuckDB runs the join described by the job file alone (scripts/bjcheck.py); the row
# multisets must be identical (EXCEPT ALL both ways, and the row counts), and for the job
# files DuckDB's row count and checksum must equal jobs/expected/<job>.json.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=$(bash scripts/bin.sh)
PY=$(bash scripts/venv.sh)
OUT=out/crosscheck
rm -rf "$OUT"

passed=0
failed=0
# section TITLE: start a section of checks; the one before says how long it took.
section_start=$SECONDS
section_title=""
section() {
    [ -z "$section_title" ] || echo "   ($((SECONDS - section_start)) s)"
    section_title=$1
    section_start=$SECONDS
    echo "== $1"
}
# check LABEL OUTPUT_DIR JOB [--set K=V]... : run the job into OUTPUT_DIR, then DuckDB.
check() {
    local out=$1 job=$2
    shift 2
    local sets=()
    for s in "$@"; do sets+=(--set "$s"); done
    local extra=()
    [ $# -gt 0 ] || extra=(--expected)
    if ! "$BIN" --quiet run "$job" "${sets[@]}" --set "join.output=$out"; then
        echo "FAILED $job $*: bloomjoin run exited non-zero"
        failed=$((failed + 1))
        return
    fi
    if "$PY" scripts/bjcheck.py duckdb "$job" "${sets[@]}" --output "$out" "${extra[@]}"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
}

section "every job file, as written (DuckDB must also reproduce jobs/expected)"
for job in jobs/*.toml; do
    check "$OUT/$(basename "$job" .toml)" "$job"
done

section "every join type, integer, string and composite (Int64, string) = (Int32, string) keys, both strategies"
for type in inner left left-semi left-anti right right-semi right-anti full; do
    for strategy in replicated reduce-side; do
        check "$OUT/int-$type-$strategy" jobs/users_comments_left.toml "join.type=$type" "join.strategy=$strategy"
        check "$OUT/str-$type-$strategy" jobs/users_comments_by_name.toml "join.type=$type" "join.strategy=$strategy"
        check "$OUT/idname-$type-$strategy" jobs/users_comments_by_id_name.toml "join.type=$type" "join.strategy=$strategy"
    done
done

section "one worker and one reducer, many workers and reducers, tiny splits and batches"
check "$OUT/serial" jobs/users_comments.toml join.workers=1 join.reducers=1 train.workers=1
check "$OUT/wide" jobs/users_comments.toml join.workers=3 join.split-rows=1000 join.batch-size=100
check "$OUT/wide-reduce" jobs/users_comments.toml join.strategy=reduce-side join.workers=3 join.reducers=13 join.split-rows=1000 join.batch-size=100
check "$OUT/over-budget" jobs/users_comments_left.toml join.memory-limit=16KiB join.workers=2

section "reduce-side partitions over --memory-limit, joined in passes, every join type"
for type in inner left left-semi left-anti right right-semi right-anti full; do
    check "$OUT/passes-$type" jobs/users_comments_by_name.toml "join.type=$type" join.strategy=reduce-side join.reducers=2 join.memory-limit=16KiB join.workers=2
done
check "$OUT/no-prefilter" jobs/users_comments_by_name.toml join.no-prefilter=true join.type=left-anti
check "$OUT/no-prefilter-reduce" jobs/users_comments_by_name.toml join.no-prefilter=true join.type=left-anti join.strategy=reduce-side

section "every output codec, read back by DuckDB"
for codec in snappy gzip lz4 brotli none; do
    check "$OUT/codec-$codec" jobs/users_comments.toml "join.compression=$codec"
done
check "$OUT/codec-zstd-19" jobs/users_comments_left.toml join.compression=zstd join.compression-level=19

section "bounded files and row groups (a part goes on in further files), read back by DuckDB: every join type, both strategies"
for type in inner left left-semi left-anti right right-semi right-anti full; do
    for strategy in replicated reduce-side; do
        check "$OUT/files-$type-$strategy" jobs/users_comments_by_name.toml "join.type=$type" "join.strategy=$strategy" \
            join.max-rows-per-file=2500 join.row-group-rows=700
    done
done
check "$OUT/files-by-size" jobs/users_comments.toml join.max-file-size=64KiB join.row-group-size=16KiB

section "null keys matching each other (--nulls-equal, DuckDB's IS NOT DISTINCT FROM): every join type, both strategies, one and two key columns"
for type in inner left left-semi left-anti right right-semi right-anti full; do
    for strategy in replicated reduce-side; do
        check "$OUT/nulls-$type-$strategy" jobs/users_comments_left.toml "join.type=$type" "join.strategy=$strategy" join.nulls-equal=true
        check "$OUT/nulls-idname-$type-$strategy" jobs/users_comments_by_id_name.toml "join.type=$type" "join.strategy=$strategy" join.nulls-equal=true
    done
done
check "$OUT/nulls-passes" jobs/users_comments_left.toml join.nulls-equal=true join.strategy=reduce-side join.reducers=2 join.memory-limit=16KiB

section "key pairs as one column (--coalesce-keys, DuckDB's COALESCE(l.k, r.k)): the joins that output both sides, both strategies, one and two key columns"
for type in inner left right full; do
    for strategy in replicated reduce-side; do
        check "$OUT/coalesce-$type-$strategy" jobs/users_comments_left.toml "join.type=$type" "join.strategy=$strategy" join.coalesce-keys=true
        check "$OUT/coalesce-idname-$type-$strategy" jobs/users_comments_by_id_name.toml "join.type=$type" "join.strategy=$strategy" join.coalesce-keys=true
    done
done
check "$OUT/coalesce-nulls" jobs/users_comments_left.toml join.type=full join.coalesce-keys=true join.nulls-equal=true
check "$OUT/coalesce-select" jobs/users_comments_left.toml join.type=full join.coalesce-keys=true "join.select=UserId AS uid, Id, left.Id AS lid, DisplayName, Text"

section "computed columns in --select (DuckDB's SELECT expressions): every join type, both strategies, and as --partition-by; stars"
both="left.Id, right.Id AS cid, Reputation + Score AS rs, Score * 1.5 AS f, upper(DisplayName) || '/' || coalesce(Location, '?') AS tag, CASE WHEN Score > 2 THEN 'up' WHEN Score IS NULL THEN NULL ELSE 'flat' END AS mood, date_diff('day', left.CreationDate, right.CreationDate) AS days, Score > 1 AS liked, Reputation / 7 AS r7, CAST(Reputation / 7 AS VARCHAR) AS r7s, md5(Text) AS h, 42 AS answer"
lefts="Id, DisplayName || '#' || Id AS tag, Reputation * 2 AS r2, length_grapheme(Location) AS lg, CreationDate + INTERVAL '1 day' AS next_day, CAST(UpVotes AS DOUBLE) / 3 AS u3"
rights="Id, Score - 1 AS s1, left(Text, 5) AS t5, year(CreationDate) AS y, sha1(Text) AS h, split_part(Text, ' ', 2) AS w2"
for type in inner left left-semi left-anti right right-semi right-anti full; do
    case $type in
    left-semi | left-anti) select=$lefts ;;
    right-semi | right-anti) select=$rights ;;
    *) select=$both ;;
    esac
    for strategy in replicated reduce-side; do
        check "$OUT/computed-$type-$strategy" jobs/users_comments_left.toml "join.type=$type" "join.strategy=$strategy" "join.select=$select"
    done
done
check "$OUT/computed-partition" jobs/users_comments_left.toml join.type=inner "join.select=left.Id, Score, year(right.CreationDate) AS y, Score % 3 AS m" "join.partition-by=y,m"
# `*`, `left.*` and `right.*` with EXCLUDE lists, beside computed columns and coalesced keys.
check "$OUT/star" jobs/users_comments_left.toml join.type=full "join.select=*, Score * 2 AS s2"
check "$OUT/star-exclude" jobs/users_comments_left.toml join.type=left join.strategy=reduce-side \
    "join.select=left.* EXCLUDE (Location, \"UpVotes\"), right.* EXCLUDE (Text, CreationDate)"
check "$OUT/star-coalesce" jobs/users_comments_left.toml join.type=full join.coalesce-keys=true "join.select=* EXCLUDE (Text, left.CreationDate)"
check "$OUT/star-semi" jobs/users_comments_left.toml join.type=right-semi "join.select=* EXCLUDE (Text), Score + 1 AS s1"
# DuckDB's REPLACE and RENAME after a star: computed or renamed columns in their places.
check "$OUT/star-replace" jobs/users_comments_left.toml join.type=inner \
    "join.select=left.* REPLACE (upper(DisplayName) AS DisplayName, Reputation * 2 AS Reputation) RENAME (Id AS user_id), right.* EXCLUDE (Text) REPLACE (left.Id AS UserId) RENAME Id AS comment_id"
check "$OUT/star-replace-coalesce" jobs/users_comments_left.toml join.type=full join.coalesce-keys=true join.strategy=reduce-side \
    "join.select=* EXCLUDE (Text) REPLACE (coalesce(Score, 0) + 1 AS Score) RENAME (left.CreationDate AS joined, right.CreationDate AS commented)"
# DuckDB's patterns on the names after a star: LIKE, ILIKE, SIMILAR TO, NOT.
check "$OUT/star-like" jobs/users_comments_left.toml join.type=left \
    "join.select=left.* EXCLUDE (Id) ILIKE '%name%', right.* NOT LIKE '%Id%'"
check "$OUT/star-similar" jobs/users_comments_left.toml join.type=full join.strategy=reduce-side "join.select=* SIMILAR TO '.*(Date|Id)'"
check "$OUT/star-columns" jobs/users_comments_left.toml join.type=inner "join.select=COLUMNS('(?i)^(u|s)'), left.Id"

section "composite key: TPC-H lineitem x partsupp on (partkey, suppkey), every join type, both strategies"
# A small TPC-H (scale 0.01: 60,175 lineitem and 8,000 partsupp rows), generated once into the
# shared cache. The filter is trained on the partsupp rows of a selective --where (about 5 %);
# the lineitem rows shipped before 1994 (about 2/7) leave some of those pairs unmatched.
TPCH=.cache/tpch/sf0.01
TPCH_TABLES="lineitem partsupp part orders customer"
missing=0
for t in $TPCH_TABLES; do [ -f "$TPCH/$t.parquet" ] || missing=1; done
if [ $missing = 1 ]; then
    BENCH_PY=$(bash scripts/venv.sh bench)
    mkdir -p .cache/tpch
    tmp=$(mktemp -d .cache/tpch/.sf0.01.XXXXXX)
    "$(dirname "$BENCH_PY")/tpchgen-cli" parquet -s 0.01 --tables="${TPCH_TABLES// /,}" -o "$tmp"
    mkdir -p "$TPCH"
    for t in $TPCH_TABLES; do mv "$tmp/$t.parquet" "$TPCH"/; done
    rmdir "$tmp"
fi
mkdir -p "$OUT"
# A job file $OUT/NAME.toml: train on the left input's rows that pass WHERE, join them with
# the right input's (those that pass RIGHT_WHERE, if given).
join_job() { # NAME LEFT LEFT_KEY WHERE RIGHT RIGHT_KEY [RIGHT_WHERE]
    cat >"$OUT/$1.toml" <<EOF
description = "$2 x $5 ($4)"

[train]
input = ["$2"]
column = "$3"
where = "$4"
fpp = 0.01
output = "$OUT/$1.bjf"
overwrite = true

[join]
left = ["$2"]
left-key = "$3"
left-where = "$4"
right = ["$5"]
right-key = "$6"
${7:+right-where = \"$7\"}
output = "$OUT/$1"
overwrite = true
EOF
}
# every_join_type NAME [K=V]...: check $OUT/NAME.toml for every join type under both strategies.
every_join_type() {
    local name=$1
    shift
    for type in inner left left-semi left-anti right right-semi right-anti full; do
        for strategy in replicated reduce-side; do
            check "$OUT/$name-$type-$strategy" "$OUT/$name.toml" "join.type=$type" "join.strategy=$strategy" "$@"
        done
    done
}
# A TPC-H join's job file, $OUT/tpch_NAME.toml: LEFT and RIGHT are table names.
tpch_job() { # NAME LEFT LEFT_KEY WHERE RIGHT RIGHT_KEY [RIGHT_WHERE]
    join_job "tpch_$1" "$TPCH/$2.parquet" "$3" "$4" "$TPCH/$5.parquet" "$6" ${7:+"$7"}
}
tpch_job partsupp partsupp "ps_partkey,ps_suppkey" "ps_availqty < 500" lineitem "l_partkey,l_suppkey" "l_shipdate < DATE '1994-01-01'"
PS_JOB=$OUT/tpch_partsupp.toml
for type in inner left left-semi left-anti right right-semi right-anti full; do
    case $type in
    left-semi | left-anti) select=ps_partkey,ps_suppkey,ps_availqty,ps_comment ;;
    right-semi | right-anti) select=l_orderkey,l_linenumber,l_partkey,l_suppkey,l_shipdate ;;
    # Renamed columns (AS), one of them output twice under two names.
    *) select="ps_partkey AS pk,ps_suppkey,ps_availqty as qty,l_orderkey,l_linenumber,l_partkey,l_partkey AS lpk2,l_suppkey,l_shipdate" ;;
    esac
    for strategy in replicated reduce-side; do
        check "$OUT/ps-$type-$strategy" "$PS_JOB" "join.type=$type" "join.strategy=$strategy" "join.select=$select"
    done
done

section "the benchmark's joins (TPC-H scale 0.01, every column): every join type, both strategies"
# The joins of scripts/bench.sh with `*`: every column of both sides, as tpchgen-cli writes
# them (strings marked Utf8View, money Decimal(15,2), dates Date32), through a LIKE, a date
# range and a string equality. Workers, batch sizes and (reduce-side) a memory limit that
# joins partitions in passes vary from check to check.
tpch_job part part p_partkey "p_name LIKE '%green%'" lineitem l_partkey
tpch_job orders orders o_orderkey "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01'" lineitem l_orderkey
tpch_job customer customer c_custkey "c_mktsegment = 'BUILDING'" orders o_custkey
i=0
for name in part orders customer; do
    for type in inner left left-semi left-anti right right-semi right-anti full; do
        for strategy in replicated reduce-side; do
            i=$((i + 1))
            knobs=("join.workers=$((i % 3 + 1))")
            # i alternates the strategies, so each knob cycles at another period (3, 5, 4)
            # for every combination of them to come up under both.
            [ $((i % 5)) -lt 2 ] && knobs+=("join.batch-size=999")
            [ "$strategy" = reduce-side ] && [ $((i % 4)) = 0 ] && knobs+=("join.memory-limit=4KiB")
            check "$OUT/tpch-$name-$type-$strategy" "$OUT/tpch_$name.toml" \
                "join.type=$type" "join.strategy=$strategy" "${knobs[@]}"
        done
    done
done

section "an extra join condition over both sides' columns (--join-where, DuckDB's ON keys AND cond): every join type, both strategies"
# check_jw NAME JOB TYPE STRATEGY COND [K=V]...: the job with join.join-where=COND. DuckDB puts
# COND in its ON clause (or the EXISTS correlation of a semi or anti join), left./right. as its
# aliases l./r. The sample's users x comments (users_comments_left: Reputation > 1500 x
# Score > 0 on Id = UserId, nulls and duplicate keys on both sides): timestamps of both sides
# (CreationDate, a name on both, qualified), Int64 against Int32, strings that are null for
# some pairs, bare names of one side, a condition of one side only (a pair failing it is no
# match: an outer join pads the row, an anti join keeps it, which a --where would drop), a
# conjunct of one side beside a comparison of both (bloomjoin moves it into that side's where
# when the join keeps no unmatched row of that side: a right join's left one, a left join's
# right one, a semi join's other side; never a full join's), OR over both sides; under
# --nulls-equal; in passes (a partition over --memory-limit); a composite key. TPC-H: part x
# lineitem, a decimal against an integer either way round; orders x orders of the same
# customer (a self-join, every name on both sides), dates against dates and decimals against
# decimals. The TPC-H ones fail if `<` is taken for `<=` (equal dates and quantities).
check_jw() {
    local name=$1 job=$2 type=$3 strategy=$4 cond=$5
    shift 5
    check "$OUT/jw-$name" "$job" "join.type=$type" "join.strategy=$strategy" "join.join-where=$cond" "$@"
}
UC=jobs/users_comments_left.toml
check_jw inner-ts $UC inner replicated "left.CreationDate < right.CreationDate"
check_jw left-ts $UC left reduce-side "left.CreationDate < right.CreationDate"
check_jw right-int $UC right replicated "right.PostId < left.Reputation AND left.UpVotes > 1000"
check_jw full-null-pairs $UC full reduce-side "right.UserDisplayName = left.DisplayName AND right.Score < 5"
check_jw left-semi-bare $UC left-semi reduce-side "left.CreationDate < right.CreationDate AND Text LIKE '%Parquet%'"
check_jw left-anti-left-only $UC left-anti replicated "left.Location IS NULL OR UpVotes > 2000"
check_jw right-semi-or $UC right-semi replicated "right.Score > 2 OR left.Location IS NULL"
check_jw right-anti-right-only $UC right-anti reduce-side "right.Score BETWEEN 2 AND 10"
check_jw nulls-full $UC full replicated "right.Score >= 2 OR left.Location IS NOT NULL" join.nulls-equal=true
check_jw nulls-right-anti $UC right-anti reduce-side "left.CreationDate < right.CreationDate" join.nulls-equal=true
check_jw passes-full $UC full reduce-side "left.CreationDate < right.CreationDate" \
    join.reducers=2 join.memory-limit=16KiB join.workers=2
check_jw idname-left jobs/users_comments_by_id_name.toml left reduce-side "left.Reputation > right.PostId"
# Conjuncts on one side alone go into that side's where where the join keeps none of its
# unmatched rows (both into an inner join's; the left one into a right join's; the right one
# into a left join's), and stay on the pairs where it keeps them (the left one of a left join).
check_jw push-inner $UC inner replicated \
    "UpVotes > 100 AND right.Score >= 1 AND left.CreationDate < right.CreationDate"
check_jw push-right $UC right reduce-side "left.UpVotes > 100 AND left.CreationDate < right.CreationDate"
check_jw push-left $UC left replicated "Score >= 2 AND left.UpVotes > 100 AND left.CreationDate < right.CreationDate"
check_jw tpch-part-left "$OUT/tpch_part.toml" left replicated \
    "right.l_quantity < left.p_size AND right.l_shipdate < DATE '1995-01-01'"
check_jw tpch-part-right-anti "$OUT/tpch_part.toml" right-anti reduce-side "left.p_size <= right.l_quantity"
tpch_job orders_cust orders o_custkey "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-06-01'" orders o_custkey
check_jw tpch-self-inner "$OUT/tpch_orders_cust.toml" inner replicated "left.o_orderdate < right.o_orderdate"
check_jw tpch-self-left-anti "$OUT/tpch_orders_cust.toml" left-anti reduce-side \
    "right.o_orderdate > left.o_orderdate AND right.o_orderdate < DATE '1995-07-01'"
check_jw tpch-self-full "$OUT/tpch_orders_cust.toml" full reduce-side \
    "left.o_orderdate < right.o_orderdate AND left.o_totalprice > right.o_totalprice" join.workers=3
# Exact arithmetic in the condition and in the sides' wheres (DuckDB computes the same values:
# no sum here overflows the types it gives them): a window of an interval over millisecond
# timestamps, integer ratios, a date minus a date and a date plus days, decimals times
# decimals (TPC-H's discounted price), a pushed conjunct with arithmetic.
check_jw arith-window $UC inner replicated \
    "right.CreationDate BETWEEN left.CreationDate AND left.CreationDate + INTERVAL '30 days'"
check_jw arith-ratio-left $UC left reduce-side "right.Score * 100 > left.UpVotes - 50"
check_jw arith-passes-full $UC full reduce-side "right.Score - 1 < -left.UpVotes * 2 + 5 * right.Score" \
    join.reducers=2 join.memory-limit=16KiB join.workers=2
check_jw arith-push-right-semi $UC right-semi replicated \
    "right.Score * 2 - 3 > 1 AND right.CreationDate - INTERVAL 1 DAY > left.CreationDate" \
    "join.left-where=UpVotes + Reputation > 2000" "train.where=UpVotes + Reputation > 2000"
check_jw arith-tpch-price "$OUT/tpch_part.toml" inner replicated \
    "right.l_extendedprice * (1 - right.l_discount) > left.p_retailprice * 10"
check_jw arith-tpch-days "$OUT/tpch_orders_cust.toml" left-anti reduce-side \
    "right.o_orderdate - left.o_orderdate BETWEEN 1 AND 30"
check_jw arith-tpch-date-plus "$OUT/tpch_orders_cust.toml" left replicated \
    "right.o_orderdate < left.o_orderdate + 7 AND right.o_totalprice - left.o_totalprice > 100000.5"
# Functions (DuckDB's of the same names, on the same text): strings compared through lower()
# and upper() with Unicode names and places and null pairs, NULL-safe equality (pairs of two
# NULL names match), parts of millisecond timestamps, CAST to DATE with a date difference,
# coalesce with literals, abs of a difference, pushed conjuncts and a train.where with
# functions; date_trunc of timestamps (months, weeks against days); on TPC-H, parts of Date32
# columns, abs of decimals, and date_trunc of Date32 with an ILIKE on ASCII values; string
# functions (prefixes cut with left(), contains, trim, substr, ||, strpos) on both; CASE in
# both forms.
check_jw fn-lower-full $UC full reduce-side "lower(right.UserDisplayName) = lower(left.DisplayName)"
check_jw fn-distinct-left $UC left replicated "right.UserDisplayName IS NOT DISTINCT FROM left.DisplayName"
check_jw fn-distinct-right-anti $UC right-anti reduce-side \
    "right.UserDisplayName IS DISTINCT FROM left.DisplayName AND upper(left.Location) LIKE '%Ü%'"
check_jw fn-parts-inner $UC inner replicated \
    "year(right.CreationDate) = year(left.CreationDate) AND month(right.CreationDate) <= quarter(left.CreationDate) * 3"
check_jw fn-cast-date-left-anti $UC left-anti reduce-side \
    "CAST(right.CreationDate AS DATE) - left.CreationDate::DATE <= 30 OR dayofweek(right.CreationDate) = 0"
check_jw fn-coalesce-right-semi $UC right-semi replicated \
    "coalesce(left.Location, 'nowhere') <> 'nowhere' OR coalesce(right.Score, 0) > 3"
check_jw fn-push-inner $UC inner replicated \
    "length(left.DisplayName) > 6 AND abs(right.Score - 3) <= 1 AND week(right.CreationDate) = week(left.CreationDate)" \
    "train.where=length(DisplayName) > 6" "join.left-where=length(DisplayName) > 6"
check_jw fn-tpch-parts "$OUT/tpch_orders.toml" inner replicated \
    "dayofweek(right.l_shipdate) IN (0, 6) AND EXTRACT(MONTH FROM right.l_receiptdate) <> month(left.o_orderdate)"
check_jw fn-tpch-abs-left "$OUT/tpch_part.toml" left reduce-side \
    "abs(right.l_extendedprice - left.p_retailprice * right.l_quantity) < 1 AND isodow(right.l_shipdate) < 6"
check_jw fn-trunc-left $UC left reduce-side \
    "date_trunc('month', right.CreationDate) = date_trunc('month', left.CreationDate) OR date_trunc('week', right.CreationDate) = date_trunc('day', left.CreationDate)"
check_jw fn-tpch-trunc-right-anti "$OUT/tpch_orders.toml" right-anti replicated \
    "date_trunc('quarter', right.l_shipdate) = date_trunc('quarter', left.o_orderdate) AND right.l_shipinstruct ILIKE '%Deliver%'"
check_jw fn-text-full $UC full reduce-side \
    "starts_with(lower(right.UserDisplayName), lower(left(left.DisplayName, 3))) AND (contains(right.Text, 'e') OR trim(left.Location) || '!' = substr(right.Text, -4))"
check_jw fn-tpch-text-left-anti "$OUT/tpch_part.toml" left-anti replicated \
    "strpos(left.p_name, substr(right.l_shipmode, 1, 2)) > 0 OR ends_with(right.l_comment, right(left.p_brand, 1))"
check_jw fn-regex-inner $UC inner reduce-side \
    "regexp_matches(right.Text, '\\b' || regexp_extract(left.DisplayName, '^(\\w{3})', 1), 'i') OR right.Text ~ regexp_replace(left.Location, '[^a-z]+', '.', 'g')"
check_jw fn-regex-tpch-right-semi "$OUT/tpch_part.toml" right-semi replicated \
    "regexp_full_match(right.l_comment, '.*\\b' || regexp_extract(left.p_name, '^\\w+') || '\\b.*') OR (right.l_shipmode SIMILAR TO '(AIR|RAIL)' AND left.p_container ~* '^sm')"
check_jw fn-case-left $UC left replicated \
    "CASE WHEN left.Location IS NULL THEN 'none' WHEN right.Score > 3 THEN trim(left.Location) ELSE 'low' END <> 'low' AND CASE right.Score WHEN 0 THEN FALSE ELSE TRUE END"

section "files of one side with different columns (a table that gained, lost and reordered columns): every join type, both strategies"
# Each side's files are unioned by name, as DuckDB's union_by_name: an output or --where column
# a file lacks reads as NULL there (bjcheck reads with union_by_name = true). The left key is
# Int32 in one file and Int64 in the others; the --where columns are each missing from a file.
EVO=$OUT/evolved
mkdir -p "$EVO/left" "$EVO/right"
"$PY" - "$EVO" <<'PYEOF'
import random, sys
import pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
rng = random.Random(7)
def ids(n, lo, hi, nulls=0.1):
    return [None if rng.random() < nulls else rng.randint(lo, hi) for _ in range(n)]
def strs(n, pool, nulls=0.1):
    return [None if rng.random() < nulls else rng.choice(pool) for _ in range(n)]
n = 400
pq.write_table(pa.table({"id": pa.array(ids(n, 0, 300), pa.int32()), "a": strs(n, ["x", "y", "z"])}),
               f"{d}/left/p0.parquet", row_group_size=150)
pq.write_table(pa.table({"id": pa.array(ids(n, 0, 300), pa.int64()), "a": strs(n, ["x", "w"]),
                         "b": [None if rng.random() < 0.1 else rng.random() * 10 for _ in range(n)]}),
               f"{d}/left/p1.parquet", row_group_size=150)
pq.write_table(pa.table({"b": [rng.random() * 10 for _ in range(n)], "id": pa.array(ids(n, 100, 500), pa.int64()),
                         "c": strs(n, ["c1", "c2"])}), f"{d}/left/p2.parquet", row_group_size=150)
pq.write_table(pa.table({"rid": pa.array(ids(3 * n, 0, 600), pa.int64()), "t": strs(3 * n, ["t1", "t2", "t3"])}),
               f"{d}/right/q0.parquet", row_group_size=500)
pq.write_table(pa.table({"u": pa.array(ids(3 * n, 0, 9), pa.int16()), "rid": pa.array(ids(3 * n, 0, 600), pa.int64()),
                         "t": strs(3 * n, ["t4"])}), f"{d}/right/q1.parquet", row_group_size=500)
PYEOF
join_job evolved "$EVO/left" id "b > 3 OR a = 'x'" "$EVO/right" rid "u IS NULL OR u < 7"
every_join_type evolved join.workers=3 join.split-rows=100

section "Hive partition directories (region=EU/dt=2024-01-01/) as columns, in *, --where (files pruned by them) and keys: every join type, both strategies"
# Both sides have a dt= directory (the right one's output as dt_right); the left has region=
# (percent-encoded and null values) and the right h= (integers); the --where on each side
# reads partition and file columns. DuckDB reads the directories as columns too.
HIVE=$OUT/hive
"$PY" - "$HIVE" <<'PYEOF'
import os, random, sys
import pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
rng = random.Random(11)
def ids(n, lo, hi, nulls=0.1):
    return [None if rng.random() < nulls else rng.randint(lo, hi) for _ in range(n)]
def put(path, table):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path, row_group_size=70)
for region in ["EU", "US", "a%2Fb", "__HIVE_DEFAULT_PARTITION__"]:
    for dt in ["2024-01-01", "2024-01-02"]:
        n = rng.randint(50, 150)
        put(f"{d}/left/region={region}/dt={dt}/part-0.parquet",
            pa.table({"id": pa.array(ids(n, 0, 400), pa.int64()), "v": [rng.random() for _ in range(n)]}))
for dt in ["2024-01-01", "2024-01-02", "2024-01-03"]:
    for h in [0, 7, 12]:
        n = rng.randint(100, 300)
        put(f"{d}/right/dt={dt}/h={h}/part-{h}.parquet",
            pa.table({"rid": pa.array(ids(n, 0, 800), pa.int32()), "w": ids(n, 0, 9)}))
PYEOF
join_job hive "$HIVE/left" id "region IS NULL OR region <> 'US' AND v > 0.2" "$HIVE/right" rid "dt >= DATE '2024-01-02' AND (h = 7 OR w < 5)"
every_join_type hive join.workers=3 join.split-rows=100
# A partition column beside a file column makes a composite key: (dt, id) = (dt, rid), the
# filter trained on the tuple.
join_job hive_key "$HIVE/left" "dt,id" "region IS NULL OR v > 0.5" "$HIVE/right" "dt,rid" "h <> 12"
every_join_type hive_key join.workers=2 join.split-rows=150
# A key of partition columns alone: (dt) = (dt). Every right file holds one key, probed once:
# the files of the days no left row has (01-01 and 01-03, 6 of 9) are not read. The left's
# --where keeps a few rows of one day, so that the joins (every left row of a day meets every
# right row of that day) stay small.
join_job hive_dt "$HIVE/left" dt "id < 15 AND dt = DATE '2024-01-02'" "$HIVE/right" dt "h <> 12"
every_join_type hive_dt join.workers=3 join.split-rows=100

section "--partition-by: the output in Hive partition directories, read back by DuckDB as partitions: every join type, both strategies"
# The partitioned sides above joined into directories of partition columns of either side
# (a `/` and Hive's null among them); the sample's comments by score (an integer of 205
# values: one worker with small batches closes parts to keep at most 64 open, and starts
# second parts in their directories) and by location (strings and nulls); TPC-H orders x
# customer by Utf8View strings and by a date. DuckDB reads the directories back
# (hive_partitioning, the values as text) and must find its own join.
for type in inner left left-semi left-anti right right-semi right-anti full; do
    case $type in
    left-semi | left-anti) pby=region ;;
    right-semi | right-anti) pby=h,dt ;;
    *) pby=region,h ;;
    esac
    for strategy in replicated reduce-side; do
        check "$OUT/pby-$type-$strategy" "$OUT/hive.toml" "join.type=$type" "join.strategy=$strategy" \
            "join.partition-by=$pby" join.workers=2
    done
done
check "$OUT/pby-sample-score" jobs/users_comments.toml join.partition-by=Score join.workers=1 join.batch-size=50
check "$OUT/pby-sample-location" jobs/users_comments_by_name.toml join.type=full join.partition-by=Location
check "$OUT/pby-sample-location-reduce" jobs/users_comments_by_name.toml join.type=left join.strategy=reduce-side \
    join.partition-by=Location,Score join.workers=2 join.reducers=3
check "$OUT/pby-tpch-customer" "$OUT/tpch_customer.toml" join.type=full join.partition-by=o_orderpriority,o_orderstatus
check "$OUT/pby-tpch-orders-date" "$OUT/tpch_customer.toml" join.select=o_orderkey,o_orderdate,c_name,o_totalprice \
    join.partition-by=o_orderdate join.strategy=reduce-side

section "a second run into a committed output (--append, --overwrite-partitions): DuckDB's rows of both runs"
# check_after OUT JOB EARLIER_SET... -- SET...: the job with the earlier settings writes OUT
# (replacing it), then the job with SET (join.append or join.overwrite-partitions) writes it
# again. DuckDB runs both joins and keeps the earlier rows as the mode says (all of them, or
# those of the partition directories the second run wrote no row to); the parts on disk must
# be the ones _SUCCESS names.
check_after() {
    local out=$1 job=$2
    shift 2
    local earlier=() sets=() args=() bj=()
    while [ "$1" != "--" ]; do earlier+=("$1"); shift; done
    shift
    sets=("$@")
    for s in "${sets[@]}"; do args+=(--set "$s"); bj+=(--set "$s"); done
    local first=("${args[@]}")
    for s in "${earlier[@]}"; do first+=(--set "$s"); bj+=(--earlier-set "$s"); done
    if ! "$BIN" --quiet run "$job" "${first[@]}" --set join.overwrite=true --set join.append=false \
        --set join.overwrite-partitions=false --set "join.output=$out" ||
        ! "$BIN" --quiet run "$job" "${args[@]}" --set join.overwrite=false --set "join.output=$out"; then
        echo "FAILED $job ${sets[*]} after ${earlier[*]}: bloomjoin run exited non-zero"
        failed=$((failed + 1))
        return
    fi
    if "$PY" scripts/bjcheck.py duckdb "$job" "${bj[@]}" --output "$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
}
# The filter the job trains is the left side's: train.where follows join.left-where.
for strategy in replicated reduce-side; do
    check_after "$OUT/append-$strategy" jobs/users_comments_left.toml \
        "join.left-where=Reputation > 1500" "train.where=Reputation > 1500" -- \
        "join.left-where=Reputation BETWEEN 100 AND 1500" "train.where=Reputation BETWEEN 100 AND 1500" \
        join.append=true "join.strategy=$strategy"
    # Comments by score: the second run rewrites the directories of scores over 5 (and Hive's
    # null directory, of users without such comments) from more users, and keeps the others.
    check_after "$OUT/overwrite-partitions-$strategy" jobs/users_comments_left.toml \
        "join.left-where=Reputation > 1500" "train.where=Reputation > 1500" "join.right-where=Score > 0" -- \
        "join.left-where=Reputation > 100" "train.where=Reputation > 100" "join.right-where=Score > 5" \
        join.partition-by=Score join.overwrite-partitions=true "join.strategy=$strategy"
done
check_after "$OUT/append-partitioned" jobs/users_comments_by_name.toml \
    "join.left-where=Reputation > 1500" "train.where=Reputation > 1500" -- \
    "join.left-where=Reputation BETWEEN 500 AND 1500" "train.where=Reputation BETWEEN 500 AND 1500" \
    join.type=full join.partition-by=Location join.append=true
check_after "$OUT/overwrite-partitions-two-levels" jobs/users_comments_by_name.toml \
    "join.left-where=Reputation > 1500" "train.where=Reputation > 1500" -- \
    "join.left-where=Reputation > 3000" "train.where=Reputation > 3000" \
    join.type=full join.partition-by=Location,Score join.overwrite-partitions=true join.workers=2
# A second run of no rows replaces nothing.
check_after "$OUT/overwrite-partitions-none" jobs/users_comments.toml "join.right-where=Score >= 0" -- \
    "join.right-where=Score > 100000" join.partition-by=Score join.overwrite-partitions=true

section "the filter job (map-only Bloom filtering): DuckDB's semi-join of the trained keys, and the false positives within a bound"
# filter_check NAME FPP TRAIN_INPUT TRAIN_COLUMN TRAIN_WHERE INPUT KEY WHERE SELECT [OPTION]...:
# train a filter on TRAIN_INPUT's TRAIN_COLUMN at FPP (the rows that pass TRAIN_WHERE), keep
# INPUT's rows whose KEY it may hold with `filter` (WHERE and SELECT: none when empty; the
# OPTIONs, those written `train:OPTION` given to train instead), then check them in DuckDB
# (bjcheck.py filter): every row of a trained key is there, and nothing but input rows that
# pass WHERE, the others (of keys outside the set) at most 3 x FPP of the candidates + 20.
filter_check() {
    local name=$1 fpp=$2 tin=$3 tcol=$4 twhere=$5 in=$6 key=$7 where=$8 select=$9
    shift 9
    local topts=() fopts=() args=()
    for o in "$@"; do
        case $o in
        train:*) topts+=("${o#train:}") ;;
        --invert) fopts+=("$o") && args+=(--invert) ;;
        --partition-by=*) fopts+=("$o") && args+=(--partition-by "${o#--partition-by=}") ;;
        *) fopts+=("$o") ;;
        esac
    done
    [ -z "$twhere" ] || { topts+=(--where "$twhere"); args+=(--train-where "$twhere"); }
    [ -z "$where" ] || { fopts+=(--where "$where"); args+=(--where "$where"); }
    [ -z "$select" ] || { fopts+=(--select "$select"); args+=(--select "$select"); }
    if ! "$BIN" --quiet train --input "$tin" --column "$tcol" --fpp "$fpp" "${topts[@]}" \
        --output "$OUT/$name.bjf" --overwrite ||
        ! "$BIN" --quiet filter --filter "$OUT/$name.bjf" --input "$in" --key "$key" "${fopts[@]}" \
            --output "$OUT/$name" --overwrite; then
        echo "FAILED filter $name: bloomjoin exited non-zero"
        failed=$((failed + 1))
        return
    fi
    if "$PY" scripts/bjcheck.py filter --train-input "$tin" --train-column "$tcol" --fpp "$fpp" \
        --input "$in" --key "$key" "${args[@]}" --output "$OUT/$name"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
}
SAMPLE=data/sample
# The sample's comments of the users over 1500 reputation: an integer key (Int64 Id against
# Int32 UserId, nulls among both), every column; then the README's upvoted ones (a --where
# and a --select with the key), and a --select without the key; a string key; a composite
# key; a filter of a high fpp (many false positives, against a bound that means something);
# a filter in Spark's format. Workers, splits and batches vary.
filter_check filter-sample 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" ""
filter_check filter-sample-where-select 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId \
    "Score > 0" "Id, UserId, Score, Text" --workers 3 --batch-size 100
filter_check filter-sample-no-key 0.01 $SAMPLE/users Id "Reputation BETWEEN 100 AND 1500" $SAMPLE/comments UserId \
    "" "Id,Score,CreationDate" --workers 1 --split-rows 1000
filter_check filter-sample-name 0.05 $SAMPLE/users DisplayName "Reputation > 1000" $SAMPLE/comments UserDisplayName \
    "" "" --workers 4 --split-rows 500 --batch-size 333
filter_check filter-sample-id-name 0.01 $SAMPLE/users Id,DisplayName "Reputation > 1500" $SAMPLE/comments \
    UserId,UserDisplayName "Score >= 0" "" --workers 2 --split-rows 1000 --batch-size 64
filter_check filter-sample-fpp-0.3 0.3 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" "" \
    --workers 1 --batch-size 4096
filter_check filter-sample-spark 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" "" \
    train:--layout=spark-v2 train:--format=spark --workers 2
# TPC-H: lineitem by the partsupp pairs of a selective --where (a composite key of two
# integers), and by the orders of a month (every column: Utf8View strings, decimals, dates).
filter_check filter-tpch-partsupp 0.01 "$TPCH/partsupp.parquet" ps_partkey,ps_suppkey "ps_availqty < 500" \
    "$TPCH/lineitem.parquet" l_partkey,l_suppkey "l_shipdate < DATE '1994-01-01'" \
    l_orderkey,l_linenumber,l_partkey,l_suppkey,l_shipdate --workers 3
filter_check filter-tpch-orders 0.01 "$TPCH/orders.parquet" o_orderkey \
    "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01'" "$TPCH/lineitem.parquet" l_orderkey \
    "" "" --workers 2 --split-rows 5000
# Hive partition directories (built above): the right side's rows by the left's keys, with
# the partition columns in the output and the --where; a key of a partition column and a file
# column, and one of a partition column alone. Files of different columns (unioned by name).
filter_check filter-hive 0.01 "$HIVE/left" id "region IS NULL OR region <> 'US' AND v > 0.2" "$HIVE/right" rid \
    "dt >= DATE '2024-01-02' AND (h = 7 OR w < 5)" "" --workers 3 --split-rows 100
filter_check filter-hive-key 0.01 "$HIVE/left" dt,id "region IS NULL OR v > 0.5" "$HIVE/right" dt,rid "h <> 12" "" \
    --workers 2 --split-rows 150
filter_check filter-hive-dt 0.01 "$HIVE/left" dt "id < 15 AND dt = DATE '2024-01-02'" "$HIVE/right" dt "" \
    "rid,h,dt" --workers 3 --split-rows 100
filter_check filter-evolved 0.01 "$EVO/left" id "b > 3 OR a = 'x'" "$EVO/right" rid "u IS NULL OR u < 7" "" \
    --workers 3 --split-rows 100
# --invert: the other rows (of keys outside the set, and null keys), but for the false
# positives'; with a high fpp, where many are dropped; a composite key; Hive partitions.
filter_check filter-invert-sample 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" "" \
    --invert --workers 3 --split-rows 1000 --batch-size 100
filter_check filter-invert-fpp-0.3 0.3 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId \
    "Score > 0" "Id, UserId, Score" --invert --workers 1
filter_check filter-invert-id-name 0.01 $SAMPLE/users Id,DisplayName "Reputation > 1500" $SAMPLE/comments \
    UserId,UserDisplayName "" "" --invert --workers 2 --batch-size 64
filter_check filter-invert-hive-key 0.01 "$HIVE/left" dt,id "region IS NULL OR v > 0.5" "$HIVE/right" dt,rid "h <> 12" "" \
    --invert --workers 2 --split-rows 150
# --partition-by: the output read back from its directories (a key column among them, and
# a date and a string partition of the Hive input, nulls among them).
filter_check filter-partitioned 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" \
    "Id, UserId, Score" --partition-by=Score --workers 3
filter_check filter-invert-partitioned 0.05 "$HIVE/left" id "v > 0.3" "$HIVE/right" rid "" "" \
    --invert --partition-by=dt,rid --workers 2 --split-rows 100
# --select computes and renames columns (the --where language, against DuckDB's SELECT of
# the same expressions): integers, text, dates and booleans of the sample; TPC-H's decimals,
# dates and Utf8View strings; a computed partition column of an inverted filter.
filter_check filter-computed 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "Score >= 0" \
    "Id, UserId AS uid, Score * 10 + length(Text) AS w, upper(left(Text, 12)) AS head, year(CreationDate) AS y, Score > 2 AS good" \
    --workers 3 --batch-size 100
filter_check filter-tpch-computed 0.01 "$TPCH/orders.parquet" o_orderkey \
    "o_orderdate >= DATE '1995-03-01' AND o_orderdate < DATE '1995-04-01'" "$TPCH/lineitem.parquet" l_orderkey \
    "" "l_orderkey AS k, l_extendedprice * (1 - l_discount) AS revenue, l_shipdate - l_commitdate AS late, month(l_shipdate) AS m, l_shipmode || '/' || l_returnflag AS mode" \
    --workers 2
filter_check filter-invert-computed 0.05 "$HIVE/left" id "v > 0.3" "$HIVE/right" rid "" \
    "rid, w * 2 + h AS wh, dt + 1 AS next_day, h % 2 = 0 AS even" --invert --partition-by=even --workers 2 --split-rows 100
filter_check filter-star 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" \
    "* EXCLUDE (Text), Score + 1 AS s1" --workers 2
filter_check filter-star-replace 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" \
    "* EXCLUDE (Text) REPLACE (Score * 10 AS Score, Id AS PostId) RENAME (UserId AS uid)" --workers 2
filter_check filter-star-like 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId "" \
    "* LIKE '%Id', Score" --workers 2
# TIMESTAMPTZ: a literal with a UTC offset against the sample's zone-less timestamps (read as
# UTC), and casts to it written out (a timestamp with time zone, and its text); a cast to
# TIMESTAMP_S (rounded to the second).
filter_check filter-timestamptz 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId \
    "CreationDate >= TIMESTAMPTZ '2012-06-01 02:00:00+02' AND CreationDate < '2016-01-01 00:00:00' OR CreationDate = TIMESTAMP WITH TIME ZONE '2008-07-31 05:40:56.518-05:30'" \
    "Id, CAST(CreationDate AS TIMESTAMPTZ) AS created, CAST(CAST(CreationDate AS TIMESTAMPTZ) AS VARCHAR) AS created_text, hour(CAST('2024-01-05 10:00:00-03' AS TIMESTAMPTZ)) AS h, CAST(CreationDate AS TIMESTAMP_S) AS sec, CAST(CreationDate AS TIMESTAMP_S) = CreationDate AS whole" \
    --workers 2
# Time zones by name: AT TIME ZONE and timezone() both ways (the sample's zone-less timestamps
# as wall clocks in a zone, and as instants shown in one), a zone's name in a literal, written
# out and compared.
filter_check filter-at-time-zone 0.01 $SAMPLE/users Id "Reputation > 1500" $SAMPLE/comments UserId \
    "hour(CAST(CreationDate AS TIMESTAMPTZ) AT TIME ZONE 'America/New_York') BETWEEN 9 AND 17 OR CreationDate AT TIME ZONE 'Asia/Kolkata' < TIMESTAMPTZ '2012-01-01 00:00:00 Europe/Oslo'" \
    "Id, CAST(CreationDate AS TIMESTAMPTZ) AT TIME ZONE 'America/New_York' AS ny, timezone('Asia/Kathmandu', CreationDate) AS kathmandu, dayofweek(CAST(CreationDate AS TIMESTAMPTZ) AT TIME ZONE 'Pacific/Kiritimati') AS kiritimati_dow, CreationDate AT TIME ZONE 'GMT-03:30' AS west" \
    --workers 2 --batch-size 100

section "Parquet Bloom filters (SBBF): our outputs read by DuckDB and pyarrow, pyarrow's read by us"
if "$PY" scripts/sbbf_interop.py "$BIN" "$OUT/sbbf"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "time zones by name: every name DuckDB knows (IANA and ICU's legacy PST, IST, ...) and ICU's custom IDs (GMT+5, gmt-03:30, GMT+5:30:15, UTC+14), AT TIME ZONE both ways and in a cast string, row by row over 83,657 instants against DuckDB's, refusals as DuckDB's"
if "$PY" scripts/zone_check.py "$BIN" "$OUT/zones"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "every key type (widths, signedness, decimal scales, timestamp units and zones, strings and binary)"
if "$PY" scripts/keytypes_check.py "$BIN" "$OUT/key-types"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "--where over TIME columns of every unit (literals, strings, IN, BETWEEN, two columns; hour, minute, second, CAST(... AS TIME), coalesce, greatest, least), row groups and pages judged, against DuckDB's"
if "$PY" scripts/where_time_check.py "$BIN" "$OUT/where-time"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "CAST of strings to DATE, TIMESTAMP, TIME and TIMESTAMPTZ (TRY_CAST and CAST) against DuckDB's casts of 20,000 generated strings"
if "$PY" scripts/strtime_check.py "$BIN" "$OUT/strtime"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "date functions (date_diff and date_sub in every unit, last_day, the parts, epoch, epoch_ms/us/ns, julian, to_timestamp, make_date, strftime; dates, timestamps of every unit and zone, times of day, literals) against DuckDB's, row by row over 3,000 generated rows"
if "$PY" scripts/date_func_check.py "$BIN" "$OUT/date-func"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "strptime and try_strptime (60 formats, 1,500 strings each: DuckDB's strftime of random instants, mutated) against DuckDB's, row by row"
if "$PY" scripts/strptime_check.py "$BIN" "$OUT/strptime"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

section "string functions (lower to levenshtein: split_part, lpad, rpad, reverse, repeat, translate, concat_ws, chr, hamming, ...) against DuckDB's, row by row over 3,000 generated rows of accents, emoji, flags, Hangul, Indic conjuncts and random characters"
if "$PY" scripts/text_func_check.py "$BIN" "$OUT/text-func"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

# every_row_passes FILE WHERE N WHAT: `train --where WHERE` over FILE (its key column `id`)
# must pass all its N rows, each holding DuckDB's answers beside the values they are of.
every_row_passes() {
    local file=$1 where=$2 n=$3 what=$4 got
    if "$BIN" --quiet train --input "$file" --column id --workers 2 --where "$where" \
        --output "$CASES/x.bjf" --overwrite --report "$CASES/r.json"; then
        got=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows_passing_where"])' "$CASES/r.json")
        if [ "$got" = "$n" ]; then
            passed=$((passed + 1))
        else
            echo "FAILED case: $got of $n $what"
            failed=$((failed + 1))
        fi
    else
        echo "FAILED case: bloomjoin train exited non-zero"
        failed=$((failed + 1))
    fi
}

section "lower(), upper(), length() and trim() of every Unicode character against DuckDB's"
# DuckDB maps each character to one (upper('ß') is 'ẞ', lower('İ') is 'i'): a table of every
# scalar value with DuckDB's answers, and bloomjoin must pass every row.
CASES=$OUT/case
mkdir -p "$CASES"
"$PY" - "$CASES/chars.parquet" <<'PYEOF'
import sys, duckdb
con = duckdb.connect()
con.execute("""COPY (SELECT i AS id, chr(i::INTEGER) AS c, upper(chr(i::INTEGER)) AS u,
    lower(chr(i::INTEGER)) AS l, length(chr(i::INTEGER)) AS n, trim(chr(i::INTEGER)) AS t
    FROM range(1, 1114112) t(i) WHERE i < 55296 OR i > 57343) TO '%s' (FORMAT parquet)""" % sys.argv[1])
PYEOF
every_row_passes "$CASES/chars.parquet" "upper(c) = u AND lower(c) = l AND length(c) = n AND trim(c) = t" \
    1112063 "characters map as DuckDB's upper/lower/length/trim"

section "date_trunc() of 200,000 dates, timestamps and nanosecond timestamps, every unit, against DuckDB's"
# Random days of the years 1..9999, microseconds of the same years, and nanoseconds of
# 1824..2116 (the first 200 rows: -100..99 ns, around the epoch), each with DuckDB's
# date_trunc to every unit. DuckDB first truncates nanoseconds toward zero; bloomjoin floors
# the instant, so DuckDB's is computed on the instant floored to microseconds. The script
# prints the condition bloomjoin must find true on every row.
TRUNC_WHERE=$("$PY" - "$CASES/trunc.parquet" <<'PYEOF'
import sys, duckdb
units = ["millennium", "century", "decade", "year", "quarter", "month", "week", "isoyear", "day",
         "hour", "minute", "second", "millisecond", "microsecond"]
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
floor = "make_timestamp((epoch_ns(ns) - (((epoch_ns(ns) % 1000) + 1000) % 1000)) // 1000)"
cols = ", ".join(f"date_trunc('{u}', d) AS d_{u}, date_trunc('{u}', ts) AS ts_{u}, "
                 f"date_trunc('{u}', {floor}) AS ns_{u}" for u in units)
con.execute(f"""COPY (SELECT id, d, ts, ns, {cols} FROM (
    SELECT i AS id, DATE '0001-01-01' + (hash(i) % 3652059)::INTEGER AS d,
        make_timestamp((hash(i * 7) % 315537897600000000)::BIGINT - 62135596800000000) AS ts,
        make_timestamp_ns(CASE WHEN i < 200 THEN i - 100
            ELSE (hash(i * 13) >> 1)::BIGINT - 4611686018427387904 END) AS ns
    FROM range(0, 200000) t(i))) TO '{sys.argv[1]}' (FORMAT parquet)""")
print(" AND ".join(f"date_trunc('{u}', {c}) = {c}_{u}" for u in units for c in ("d", "ts", "ns")))
PYEOF
)
every_row_passes "$CASES/trunc.parquet" "$TRUNC_WHERE" 200000 "rows have DuckDB's date_trunc for every unit"

section "string functions of 200,000 random strings, needles and positions against DuckDB's"
# Strings of 0 to 8 characters over ASCII letters, 'é', '€', a tab and space separators; needles
# of 0 to 2; positions and counts of -10..10; NULLs in every column. DuckDB computes every
# call (each SQL form too); the script prints the condition bloomjoin must find true on every row.
STR_WHERE=$("$PY" - "$CASES/strings.parquet" 200000 <<'PYEOF'
import random, sys, duckdb, pyarrow as pa
rng = random.Random(7)
n = int(sys.argv[2])
alpha = "abxAB é€\t\u3000\u00a0"
def word(k):
    return "".join(rng.choice(alpha) for _ in range(rng.randrange(k)))
def maybe(v, p):
    return None if rng.random() < p else v
t = pa.table({
    "id": list(range(n)),
    "s": [maybe(word(9), 0.05) for _ in range(n)],
    "p": [maybe(word(3), 0.04) for _ in range(n)],
    "a": [maybe(rng.randint(-10, 10), 0.03) for _ in range(n)],
    "b": [maybe(rng.randint(-10, 10), 0.03) for _ in range(n)],
})
con = duckdb.connect()
con.register("t", t)
calls = [
    "starts_with(s, p)", "ends_with(s, p)", "contains(s, p)", "contains(s, 'a')", "strpos(s, p)",
    "substr(s, a)", "substr(s, a, b)", "left(s, a)", "right(s, a)", "trim(s)", "ltrim(s)",
    "rtrim(s)", "trim(s, p)", "ltrim(s, p)", "rtrim(s, p)", "replace(s, p, 'Z')",
    "replace(s, 'a', p)", "concat(s, p, s)", "s || p", "position(p IN s)",
    "SUBSTRING(s FROM a FOR b)", "SUBSTRING(s FROM a)", "TRIM(LEADING p FROM s)",
    "TRIM(TRAILING ' é' FROM s)", "TRIM(BOTH p FROM s)", "prefix(s, p)", "suffix(s, p)",
    "instr(s, p)", "substring(s, b, a)", "upper(substr(trim(s), 2, 3)) || lower(p) || 'é'",
    "length(replace(s, p, ''))", "concat(NULL, p)", "left(s || s, b)",
]
cols = ", ".join(f"{c} AS r{i}" for i, c in enumerate(calls))
con.execute(f"COPY (SELECT *, {cols} FROM t) TO '{sys.argv[1]}' (FORMAT parquet)")
print(" AND ".join(f"{c} IS NOT DISTINCT FROM r{i}" for i, c in enumerate(calls)))
PYEOF
)
every_row_passes "$CASES/strings.parquet" "$STR_WHERE" 200000 "rows have DuckDB's string functions"

section "regular expressions of 200,000 random strings and patterns against DuckDB's (RE2)"
# Strings of 0 to 8 characters over letters, digits, 'é', the Kelvin sign, '_', '.', '-', '<', a
# space, a tab, a newline and a vertical tab (RE2's \s leaves it out); patterns from a pool,
# NULLs in both. Each call, with literal and column patterns, options, replacements and
# groups, is DuckDB's; the script prints the condition bloomjoin must find true on every row.
RE_WHERE=$("$PY" - "$CASES/regex.parquet" 200000 <<'PYEOF'
import random, sys, duckdb, pyarrow as pa
rng = random.Random(11)
n = int(sys.argv[2])
alpha = "abAB19é\u212a_.-< \t\n\x0b"
pool = ["a", "a.", r"\w+", r"\d", "^a", "b$", "[ab]+", "x|y", "", r"\s", "(a)(b)?", "é", "k",
        r"\b", ".*", "a*?", "[^a-z]", r"\D\W", r"\S+", "(?i)B", r"[\w.]+", r"\Bb", r"\<", r"[\<-\>]"]
def maybe(v, p):
    return None if rng.random() < p else v
t = pa.table({
    "id": list(range(n)),
    "s": [maybe("".join(rng.choice(alpha) for _ in range(rng.randrange(9))), 0.05) for _ in range(n)],
    "p": [maybe(rng.choice(pool), 0.04) for _ in range(n)],
})
con = duckdb.connect()
con.register("t", t)
calls = [
    r"regexp_matches(s, '\d+')", r"regexp_matches(s, '^\w')", r"regexp_matches(s, '\bab')",
    "regexp_matches(s, 'a.b')", "regexp_matches(s, 'a.b', 's')", "regexp_matches(s, 'k', 'i')",
    r"regexp_matches(s, '[^\w\s]')", "regexp_full_match(s, '[a-z]*')",
    r"regexp_full_match(s, '\S*', 'i')", "s ~ p", "s ~* p", "s !~ p", "s SIMILAR TO p",
    "regexp_matches(s, p, 'l')", r"regexp_replace(s, p, '<\0>', 'g')",
    r"regexp_replace(s, '(\w)(\d)', '\2\1')", "regexp_replace(s, p, 'Z$')",
    r"regexp_extract(s, '(\w+)\s(\w+)', 2)", "regexp_extract(s, p)", "regexp_extract(s, p, 0, 'i')",
    r"regexp_replace(s, '\s', '', 'g')", "regexp_matches(s, '^.{3}$')",
    r"regexp_matches(s, '\x{e9}|\x{212a}', 'i')", "regexp_matches(s, '[[:upper:]]')",
    r"regexp_matches(s, '\pL\PL')", "regexp_replace(s, 'b*', '-', 'g')",
    "regexp_replace(s, '$', '!')", "regexp_replace(s, '^', '>', 'g')",
    r"regexp_full_match(s, '[\w\s]*', 'i')", r"regexp_extract(s, '(x)?(\d)', 1)",
    "regexp_replace(s, '.', '', 'gs')", r"upper(regexp_extract(s, '\w\w')) || p",
    "regexp_escape(s)", "regexp_matches(s, regexp_escape(p))", "regexp_full_match(s, regexp_escape(s))",
    r"regexp_replace(s, '\<', '>', 'g')",
]
cols = ", ".join(f"{c} AS r{i}" for i, c in enumerate(calls))
con.execute(f"COPY (SELECT *, {cols} FROM t) TO '{sys.argv[1]}' (FORMAT parquet)")
print(" AND ".join(f"{c} IS NOT DISTINCT FROM r{i}" for i, c in enumerate(calls)))
PYEOF
)
every_row_passes "$CASES/regex.parquet" "$RE_WHERE" 200000 "rows have DuckDB's regular expressions"

section "CAST, TRY_CAST, % and / of 200,000 random strings, numbers, dates and timestamps against DuckDB's"
# Strings built to hit DuckDB's integer reader (spaces, signs, '_', fractions, exponents, 0x and
# 0b, the bounds of every integer type, junk), decimals, integers and floats, dates over years
# -10000..20000, timestamps of every unit and a zone, booleans; NULLs in every column. DuckDB
# computes each cast (the strings to the 8 integer types, 6 decimals, DOUBLE and FLOAT, with
# inf, nan and nan(..) spellings among them), to VARCHAR, remainders (with
# error_on_division_by_zero off: a % 0 is NULL), divisions and float arithmetic (DOUBLE and
# FLOAT, by zero too); the script prints the condition bloomjoin must find true on every row.
CAST_WHERE=$("$PY" - "$CASES/cast.parquet" 200000 <<'PYEOF'
import random, sys, duckdb, pyarrow as pa
from decimal import Decimal
rng = random.Random(13)
n = int(sys.argv[2])
ws = " \t\n\x0b\x0c\r"
def digits(k, alphabet="0123456789", under=0.1):
    out = ""
    for i in range(k):
        out += rng.choice(alphabet)
        if rng.random() < under:
            out += "_" * rng.choice([1, 1, 1, 2])
    return out
bounds = ["127", "128", "255", "256", "32767", "32768", "65535", "65536", "2147483647",
          "2147483648", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
          "18446744073709551615", "18446744073709551616"]
def number():
    r = rng.random()
    s = ""
    if r < 0.03:
        return rng.choice(["", "+", "-", "+-", " "]) + rng.choice(["inf", "Infinity", "NaN", "nan(1_a)", "nan()", "in", "nan(", "infinityx"])
    if rng.random() < 0.15:
        s += "".join(rng.choice(ws) for _ in range(rng.randint(1, 2)))
    if rng.random() < 0.3:
        s += rng.choice("+--")
    if r < 0.12:
        s += rng.choice(["0x", "0X", "0b", "0B"]) + digits(rng.randint(0, 17), "0123456789abcdefABCDEF" if rng.random() < 0.7 else "01", 0.08)
    elif r < 0.25:
        s += rng.choice(bounds) + rng.choice(["", ".4", ".5", ".49", "e0", "e-1", "0"])
    else:
        s += digits(rng.choice([0, 1, 1, 2, 3, 5, 10, 19, 20, 25]))
        if rng.random() < 0.4:
            s += "." + digits(rng.choice([0, 1, 1, 2, 3, 10, 20]))
        if rng.random() < 0.3:
            s += rng.choice("eE") + rng.choice(["", "+", "-", ""]) + digits(rng.choice([0, 1, 1, 2, 3, 6]), under=0.05)
            if rng.random() < 0.05:
                s += rng.choice([".", ".5", "x"])
    if rng.random() < 0.15:
        s += "".join(rng.choice(ws + "x.") for _ in range(rng.randint(1, 2)))
    return s
def maybe(v, p):
    return None if rng.random() < p else v
def dec():
    return Decimal(rng.randint(-10**18 + 1, 10**18 - 1)).scaleb(-4) if rng.random() < 0.5 else Decimal(rng.randint(-10**6, 10**6)).scaleb(-4)
def flt():
    r = rng.random()
    if r < 0.3:
        return rng.randint(-10**6, 10**6) + rng.choice([0.5, -0.5, 0.0, 0.25])
    if r < 0.35:
        return rng.choice([float("nan"), float("inf"), -float("inf"), 2.0**63, -2.0**63, 2.0**31 - 0.5, -2.0**31 - 0.5, 1e300])
    return rng.uniform(-3e9, 3e9)
t = pa.table({
    "id": list(range(n)),
    "s": [maybe(number(), 0.02) for _ in range(n)],
    "d": pa.array([maybe(dec(), 0.02) for _ in range(n)], pa.decimal128(18, 4)),
    "i": pa.array([maybe(rng.randint(-2**63, 2**63 - 1) >> rng.randint(0, 63), 0.02) for _ in range(n)], pa.int64()),
    "f": pa.array([maybe(flt(), 0.02) for _ in range(n)], pa.float64()),
    "dt": pa.array([maybe(rng.randint(-4371587, 6574064), 0.02) for _ in range(n)], pa.date32()),
    "ts": pa.array([maybe(rng.randint(-2**62, 2**62) // rng.choice([1, 10**6, 10**3]) * 1, 0.02) for _ in range(n)], pa.timestamp("us")),
    "ns": pa.array([maybe(rng.randint(-2**63 + 2, 2**63 - 2) // rng.choice([1, 1000, 10**9]), 0.02) for _ in range(n)], pa.timestamp("ns")),
    "tz": pa.array([maybe(rng.randint(-2**50, 2**50), 0.02) for _ in range(n)], pa.timestamp("us", tz="UTC")),
    "b": pa.array([maybe(rng.random() < 0.5, 0.05) for _ in range(n)]),
})
def misread(s):
    """Whether DuckDB 2.0.1's float reader (its fork of fast_float, which takes '_' between
    digits) goes wrong on s: a '_' right after the fraction's first 8, 16, ... digits, which it
    reads 8 at a time, is refused ('.12941046_7_8'), and a '_' in a number of more than 19
    digits, counted with the '_'s, takes its slow path, which gives a wrong value or none
    ('0_404_5_13620_053535264' is 404513620053535300). bloomjoin reads them as written."""
    if s is None or "_" not in s:
        return False
    m = s.strip(ws).lstrip("+-").replace("E", "e").split("e")[0]
    frac = m.partition(".")[2]
    run = len(frac) - len(frac.lstrip("0123456789"))
    if run and run % 8 == 0 and frac[run:run + 1] == "_":
        return True
    return len(m.lstrip("0.").replace(".", "")) > 19
t = t.append_column("misread", pa.array([misread(s) for s in t.column("s").to_pylist()]))
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.register("t", t)
ints = ["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"]
decs = ["DECIMAL(3,2)", "DECIMAL(4,0)", "DECIMAL(9,4)", "DECIMAL(18,4)", "DECIMAL(38,10)", "DECIMAL(4,4)"]
calls = [f"TRY_CAST(s AS {ty})" for ty in ints + decs] + ["CAST(TRY_CAST(s AS DECIMAL(4,4)) AS VARCHAR)"] + [
    "TRY_CAST(d AS INTEGER)", "TRY_CAST(d AS UBIGINT)", "TRY_CAST(d AS DECIMAL(9,2))", "TRY_CAST(d AS DECIMAL(18,0))",
    "TRY_CAST(d AS DECIMAL(6,5))", "TRY_CAST(i AS INTEGER)", "TRY_CAST(i AS UINTEGER)", "TRY_CAST(i AS DECIMAL(12,3))",
    "TRY_CAST(f AS INTEGER)", "TRY_CAST(f AS BIGINT)", "TRY_CAST(f AS UBIGINT)", "TRY_CAST(b AS TINYINT)",
    "CAST(d AS VARCHAR)", "CAST(i AS VARCHAR)", "CAST(b AS VARCHAR)", "CAST(dt AS VARCHAR)", "CAST(ts AS VARCHAR)",
    "CAST(ns AS VARCHAR)", "CAST(tz AS VARCHAR)", "CAST(d * i % 7 AS VARCHAR)",
    "TRY_CAST(CAST(d AS VARCHAR) AS BIGINT)", "TRY_CAST(CAST(i AS VARCHAR) AS INTEGER)",
    "i % 1000", "d % 0.3", "i % (d - 1)",
    "TRY_CAST(s AS DOUBLE)", "TRY_CAST(s AS FLOAT)", "CAST(d AS DOUBLE)", "CAST(d AS REAL)", "CAST(i AS DOUBLE)",
    "CAST(i AS FLOAT)", "TRY_CAST(f AS FLOAT)", "CAST(b AS DOUBLE)", "i / d", "d / 7", "i / 3", "f / i", "f * d",
    "TRY_CAST(f AS FLOAT) + i", "TRY_CAST(f AS FLOAT) / d", "f % 7", "TRY_CAST(s AS DOUBLE) * d - f", "-f / (d - d)",
]
cols = ", ".join(f"{c} AS r{i}" for i, c in enumerate(calls))
floats = {f"TRY_CAST(s AS {ty})" for ty in ("DOUBLE", "FLOAT")} | {"TRY_CAST(s AS DOUBLE) * d - f"}
con.execute("SET error_on_division_by_zero = false")
con.execute(f"COPY (SELECT *, {cols} FROM t) TO '{sys.argv[1]}' (FORMAT parquet)")
print(" AND ".join(f"({'misread OR ' if c in floats else ''}{c} IS NOT DISTINCT FROM r{i})" for i, c in enumerate(calls)))
PYEOF
)
every_row_passes "$CASES/cast.parquet" "$CAST_WHERE" 200000 "rows have DuckDB's casts and remainders"

section "round, trunc, floor, ceil, sign, the DOUBLE functions, greatest and least of 200,000 random numbers against DuckDB's"
# Doubles written as short decimals ending in 5 (ties once scaled, which DuckDB decides by the
# exact product up to 22 digits), of every magnitude, and NaN, infinities and -0.0; FLOATs;
# decimals; integers of every size (r is g as a FLOAT). DuckDB computes each function (round and trunc at digits
# from -320 to 330); the script prints the condition bloomjoin must find true on every row.
MATH_WHERE=$("$PY" - "$CASES/math.parquet" 200000 <<'PYEOF'
import random, sys, duckdb, pyarrow as pa
from decimal import Decimal
rng = random.Random(17)
n = int(sys.argv[2])
def maybe(v, p):
    return None if rng.random() < p else v
def flt():
    r = rng.random()
    if r < 0.4:
        return float(f"{rng.randint(-10**rng.randint(1, 12), 10**12)}5e-{rng.randint(1, 14)}")
    if r < 0.45:
        return rng.choice([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 5e-324, 1.7976931348623157e308, 2.0**53 + 1])
    return rng.uniform(-10, 10) * 10.0 ** rng.randint(-300, 300)
t = pa.table({
    "id": list(range(n)),
    "f": pa.array([maybe(flt(), 0.02) for _ in range(n)], pa.float64()),
    "g": pa.array([maybe(flt(), 0.02) for _ in range(n)], pa.float64()),
    "d": pa.array([maybe(Decimal(rng.randint(-10**rng.randint(1, 18) + 1, 10**18 - 1)).scaleb(-4), 0.02) for _ in range(n)], pa.decimal128(18, 4)),
    "i": pa.array([maybe(rng.randint(-2**63, 2**63 - 1) >> rng.randint(0, 63), 0.02) for _ in range(n)], pa.int64()),
})
con = duckdb.connect()
con.register("t0", t)
con.execute("CREATE VIEW t AS SELECT *, TRY_CAST(g AS FLOAT) AS r FROM t0")
digits = [-320, -20, -3, -1, 0, 1, 2, 3, 5, 8, 15, 22, 23, 30, 330]
calls = [f"round(f, {k})" for k in digits] + [f"trunc(f, {k})" for k in digits] + [
    f"round(r, {k})" for k in (-1, 0, 2, 5, 22, 23)] + [f"round(d, {k})" for k in (-20, -3, 0, 2, 3, 6)] + [
    f"trunc(d, {k})" for k in (-3, 0, 2)] + [f"round(i, {k})" for k in (-2, 0, 3)] + [f"trunc(i, {k})" for k in (-4, 1)] + [
    "round(f)", "trunc(f)", "floor(f)", "ceil(f)", "ceiling(r)", "floor(r)", "trunc(r, 1)", "floor(d)", "ceil(d)",
    "floor(i)", "ceil(i)", "sign(f)", "sign(r)", "sign(d)", "sign(i)",
    "sqrt(f)", "sqrt(d)", "ln(f)", "log(d)", "log10(i)", "log2(f)", "log(g, f)", "log(2, d)", "exp(f)", "exp(d / 1000)",
    "power(f, g)", "power(d, 2)", "pow(i, 0.5)", "power(r, r)", "sin(f)", "cos(d)", "tan(i)", "cot(f)", "asin(f)", "acos(r)",
    "atan(i)", "atan2(f, g)", "degrees(f)", "radians(d)", "isnan(f)", "isinf(r)", "isfinite(d)", "round(f / 3, 2)",
    "round(d / 7, 3)", "floor(f * 10) / 10", "greatest(f, g)", "least(f, r, d)", "greatest(d, i)", "least(i, 5, NULL)",
    "greatest(f, NULL, i)", "least(r, 0.5)",
]
cols = ", ".join(f"{c} AS r{i}" for i, c in enumerate(calls))
con.execute(f"COPY (SELECT *, {cols} FROM t) TO '{sys.argv[1]}' (FORMAT parquet)")
print(" AND ".join(f"({c} IS NOT DISTINCT FROM r{i})" for i, c in enumerate(calls)))
PYEOF
)
every_row_passes "$CASES/math.parquet" "$MATH_WHERE" 200000 "rows have DuckDB's numeric functions"

echo "   ($((SECONDS - section_start)) s)"
echo
echo "crosscheck: $passed passed, $failed failed in $SECONDS s"
[ "$failed" -eq 0 ]
