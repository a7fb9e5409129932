use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;

/// `"a=1&b=x y"` → parameters (no percent-decoding: test values have no `&` or `=`).
fn q(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

fn run(s: &str, mutant: Option<Mutant>) -> Response {
    search(&q(s), mutant).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn ok(s: &str) -> Response {
    run(s, None)
}

fn ids(r: &Response) -> Vec<usize> {
    r.items.iter().map(|i| i.id).collect()
}

fn set(r: &Response) -> BTreeSet<usize> {
    r.items.iter().map(|i| i.id).collect()
}

fn err(s: &str) -> QueryError {
    search(&q(s), None).unwrap_err()
}

// ---- Semantics ----

#[test]
fn no_parameters_returns_every_movie_by_title() {
    let r = ok("");
    assert_eq!(r.total, 3201);
    assert_eq!(r.items.len(), 3201);
    let titles: Vec<&str> = r
        .items
        .iter()
        .map(|i| movies()[i.id].title_lc.as_str())
        .collect();
    // The one movie without a title sorts last.
    assert!(titles[..3200].windows(2).all(|w| w[0] <= w[1]));
    assert!(r.items[3200].title.is_none());
}

#[test]
fn text_filters_are_case_insensitive_substrings() {
    assert_eq!(ok("title=LOVE"), ok("title=love"));
    assert_eq!(ok("title=love").total, 38);
    assert!(ok("director=spielberg").items.iter().all(|i| i
        .director
        .as_deref()
        .unwrap()
        .contains("Spielberg")));
    assert_eq!(ok("director=spielberg").total, 23);
    // An empty substring matches everything, null titles included.
    assert_eq!(ok("title=").total, 3201);
    // Numeric titles are text.
    assert_eq!(ok("title=1776").items[0].title.as_deref(), Some("1776"));
}

#[test]
fn ranges_are_inclusive_and_exclude_nulls() {
    let r = ok("min_year=1998&max_year=1998");
    assert!(r.items.iter().all(|i| i.year == Some(1998)));
    assert!(ids(&r).contains(&0));
    let r = ok("min_imdb=6.1&max_imdb=6.1");
    assert!(ids(&r).contains(&0) && r.items.iter().all(|i| i.imdb == Some(6.1)));
    let nulls = movies().iter().filter(|m| m.imdb.is_none()).count();
    assert!(nulls > 0);
    assert!(ok("max_imdb=10").items.iter().all(|i| i.imdb.is_some()));
    assert_eq!(ok("min_imdb=0").total, 3201 - nulls);
    assert!(ok("min_votes=100000")
        .items
        .iter()
        .all(|i| i.votes.unwrap() >= 100000));
}

#[test]
fn categorical_filters() {
    assert!(ok("genre=Comedy")
        .items
        .iter()
        .all(|i| i.genre.as_deref() == Some("Comedy")));
    assert!(ok("genre=Unknown").items.iter().all(|i| i.genre.is_none()));
    assert_eq!(ok("genre=Unknown").total, 275);
    let any = ok("rating=any");
    assert!(any
        .items
        .iter()
        .all(|i| RATINGS[..6].contains(&i.rating.as_deref().unwrap())));
    // Null and "Open" ratings only appear without a rating filter.
    let open = movies()
        .iter()
        .filter(|m| m.mpaa.as_deref() == Some("Open"))
        .count();
    let null = movies().iter().filter(|m| m.mpaa.is_none()).count();
    assert_eq!((open, null), (2, 605));
    assert_eq!(any.total, 3201 - open - null);
    assert!(ok("rating=Not Rated").total > 0);
}

#[test]
fn disjunctive_filters_add_to_the_conjunctive_result() {
    let base = set(&ok("director=Allen"));
    let scorsese = set(&ok("director=Scorsese"));
    let both = set(&ok("director=Allen&also_director=Scorsese"));
    assert_eq!(both, base.union(&scorsese).copied().collect());
    let docs = set(&ok("genre=Documentary"));
    let r = set(&ok("min_year=2009&or_genre=Documentary"));
    assert_eq!(r, set(&ok("min_year=2009")).union(&docs).copied().collect());
    // Facets restrict the widened result too.
    let r = set(&ok("min_year=2009&or_genre=Documentary&rating=R"));
    let rated_r = set(&ok("rating=R"));
    assert_eq!(
        r,
        set(&ok("min_year=2009&or_genre=Documentary"))
            .intersection(&rated_r)
            .copied()
            .collect()
    );
    // Without text or range filters the narrowed part is everything.
    assert_eq!(ok("or_genre=Western").total, 3201);
}

#[test]
fn sorts_are_total_and_nulls_go_where_asked() {
    let m = movies();
    let years: Vec<i64> = ids(&ok("sort=year_asc"))
        .iter()
        .map(|&i| m[i].year.unwrap())
        .collect();
    assert!(years.windows(2).all(|w| w[0] <= w[1]));
    let r = ids(&ok("sort=year_desc"));
    assert!(r.windows(2).all(|w| {
        let (a, b) = (&m[w[0]], &m[w[1]]);
        a.year > b.year || (a.year == b.year && a.id < b.id)
    }));
    let imdb = ids(&ok("sort=imdb_desc"));
    let first_null = imdb.iter().position(|&i| m[i].imdb.is_none()).unwrap();
    assert!(imdb[first_null..].iter().all(|&i| m[i].imdb.is_none()));
    assert!(imdb[..first_null]
        .windows(2)
        .all(|w| m[w[0]].imdb >= m[w[1]].imdb));
    let imdb = ids(&ok("sort=imdb_desc&nulls=first"));
    assert!(m[imdb[0]].imdb.is_none() && m[imdb[3200]].imdb.is_some());
    let gross = ids(&ok("sort=gross_desc"));
    assert_eq!(m[gross[0]].title.as_deref(), Some("Avatar"));
    assert_eq!(ids(&ok("sort=title_desc"))[3199], ids(&ok(""))[0]);
}

#[test]
fn paging_slices_the_sorted_result() {
    let all = ok("title=the");
    let page = ok("title=the&offset=10&limit=5");
    assert_eq!(page.total, all.total);
    assert_eq!(page.items, all.items[10..15]);
    assert!(ok("title=the&offset=100000").items.is_empty());
    assert!(ok("limit=0").items.is_empty());
    assert_eq!(ok("offset=0"), ok(""));
}

#[test]
fn bad_parameters_name_the_parameter() {
    let cases = [
        ("nope=1", "nope"),
        ("min_imdb=abc", "min_imdb"),
        ("max_imdb=NaN", "max_imdb"),
        ("max_imdb=inf", "max_imdb"),
        ("min_year=1999.5", "min_year"),
        ("min_votes=", "min_votes"),
        ("limit=-1", "limit"),
        ("offset=x", "offset"),
        ("genre=comedy", "genre"),
        ("or_genre=", "or_genre"),
        ("rating=ANY", "rating"),
        ("sort=imdb_asc", "sort"),
        ("nulls=middle", "nulls"),
        ("title=a&title=b", "title"),
    ];
    for (s, p) in cases {
        assert_eq!(err(s).parameter(), p, "{s}");
    }
    assert!(matches!(err("title=a&title=b"), QueryError::Repeated(_)));
    assert!(err("genre=comedy")
        .to_string()
        .contains("one of Action, Adventure"));
}

#[test]
fn enums_and_defaults() {
    let named: BTreeSet<&str> = movies().iter().filter_map(|m| m.genre.as_deref()).collect();
    assert_eq!(
        named.into_iter().chain([UNKNOWN]).collect::<Vec<_>>(),
        GENRES
    );
    for p in PARAMETERS {
        if let Some(d) = default_value(p) {
            assert_eq!(ok(&format!("{p}={d}")), ok(""), "{p}");
        }
    }
    assert_eq!(default_value("limit"), None);
}

// ---- Seeded faults: each is live, and the claimed relation catches it ----

/// For every mutant, a query on which it answers differently from the original.
const LIVE: &[(Mutant, &str)] = &[
    (Mutant::MaxYearExclusive, "min_year=1998&max_year=1998"),
    (Mutant::OrGenreAsAnd, "min_year=2005&or_genre=Western"),
    (
        Mutant::AlsoDirectorReplaces,
        "min_year=2005&also_director=Spielberg",
    ),
    (Mutant::IgnoreRating, "rating=G"),
    (
        Mutant::TitleIgnoredWithDirector,
        "title=Star&director=Lucas",
    ),
    (Mutant::CaseSensitiveTitle, "title=love"),
    (Mutant::NullImdbLeak, "max_imdb=5"),
    (Mutant::GenreSubstring, "genre=Comedy"),
    (Mutant::RatingPrefix, "rating=PG"),
    (Mutant::AllGenresDropWestern, "director=Eastwood"),
    (Mutant::AnyRatingDropsNc17, "rating=any"),
    (Mutant::DefaultSortYearDesc, "director=Spielberg"),
    (Mutant::SortTiesCollapse, "min_year=2009&sort=year_desc"),
    (
        Mutant::YearSortIgnoresDirection,
        "director=Spielberg&sort=year_asc",
    ),
    (Mutant::ImdbSortDropsNulls, "min_year=2008&sort=imdb_desc"),
    (Mutant::OffsetOffByOne, "director=Spielberg&offset=1"),
    (Mutant::Cap100, "min_year=2005"),
];

#[test]
fn every_mutant_is_live() {
    for m in Mutant::ALL {
        let (_, s) = LIVE
            .iter()
            .find(|(x, _)| *x == m)
            .unwrap_or_else(|| panic!("no witness for {m}"));
        assert_ne!(run(s, Some(m)), ok(s), "{m} on {s}");
    }
}

#[derive(Debug, Clone, Copy)]
enum Rel {
    /// Follow-up items ⊆ source items.
    Subset,
    Superset,
    Disjoint,
    SameSet,
    Identical,
}

fn holds(rel: Rel, src: &Response, fu: &Response) -> bool {
    let (a, b) = (set(src), set(fu));
    match rel {
        Rel::Subset => b.is_subset(&a),
        Rel::Superset => b.is_superset(&a),
        Rel::Disjoint => a.is_disjoint(&b),
        Rel::SameSet => a == b,
        Rel::Identical => src == fu,
    }
}

/// (mutant, relation, source, follow-up): the relation holds on the original and fails on the
/// mutant. Covers every mutant with a non-empty `revealed_by` (COMPLETE: see below).
const REVEAL: &[(Mutant, Rel, &str, &str)] = &[
    (
        Mutant::OrGenreAsAnd,
        Rel::Superset,
        "min_year=2005",
        "min_year=2005&or_genre=Western",
    ),
    (
        Mutant::AlsoDirectorReplaces,
        Rel::Superset,
        "min_year=2005",
        "min_year=2005&also_director=Spielberg",
    ),
    (Mutant::IgnoreRating, Rel::Disjoint, "rating=G", "rating=PG"),
    (
        Mutant::TitleIgnoredWithDirector,
        Rel::Subset,
        "title=Star",
        "title=Star&director=Lucas",
    ),
    (
        Mutant::GenreSubstring,
        Rel::Disjoint,
        "genre=Comedy",
        "genre=Black Comedy",
    ),
    (
        Mutant::RatingPrefix,
        Rel::Disjoint,
        "rating=PG",
        "rating=PG-13",
    ),
    (
        Mutant::AllGenresDropWestern,
        Rel::Subset,
        "director=Eastwood",
        "director=Eastwood&genre=Western",
    ),
    (
        Mutant::DefaultSortYearDesc,
        Rel::Identical,
        "director=Spielberg",
        "director=Spielberg&sort=title_asc",
    ),
    (
        Mutant::SortTiesCollapse,
        Rel::SameSet,
        "min_year=2005",
        "min_year=2005&sort=year_desc",
    ),
    (
        Mutant::ImdbSortDropsNulls,
        Rel::SameSet,
        "min_year=2008",
        "min_year=2008&sort=imdb_desc",
    ),
    (
        Mutant::Cap100,
        Rel::Subset,
        "min_year=2005",
        "min_year=2005&min_imdb=8",
    ),
];

#[test]
fn claimed_relations_reveal_their_mutants() {
    for &(m, rel, src, fu) in REVEAL {
        assert!(
            holds(rel, &ok(src), &ok(fu)),
            "original breaks {rel:?} on {src} / {fu}"
        );
        assert!(
            !holds(rel, &run(src, Some(m)), &run(fu, Some(m))),
            "{m} survives {rel:?} on {src} / {fu}"
        );
    }
    // COMPLETE on rating: the union over the six ratings equals rating=any.
    let union = |m: Option<Mutant>| -> BTreeSet<usize> {
        RATINGS[..6]
            .iter()
            .flat_map(|r| set(&run(&format!("rating={r}"), m)))
            .collect()
    };
    assert_eq!(union(None), set(&ok("rating=any")));
    let m = Some(Mutant::AnyRatingDropsNc17);
    assert_ne!(union(m), set(&run("rating=any", m)));
    for m in Mutant::ALL {
        let claimed = !m.revealed_by().is_empty();
        let shown = REVEAL.iter().any(|r| r.0 == m) || m == Mutant::AnyRatingDropsNc17;
        assert_eq!(claimed, shown, "{m}: revealed_by and witnesses disagree");
    }
}

// ---- Relation properties of the original ----

const CONJUNCTIVE: [(&str, &[&str]); 9] = [
    ("title", &["the", "love", "Star", "man", "night"]),
    (
        "director",
        &["Spielberg", "Scott", "Allen", "Burton", "Lee"],
    ),
    ("min_imdb", &["5", "6.5", "7", "7.5", "8"]),
    ("max_imdb", &["4", "5.5", "6", "7", "8"]),
    ("min_year", &["1980", "1995", "2000", "2005"]),
    ("max_year", &["1990", "1999", "2003", "2008"]),
    ("min_votes", &["1000", "10000", "50000", "100000"]),
    ("genre", &GENRES),
    ("rating", &RATINGS),
];
const DISJUNCTIVE: [(&str, &[&str]); 2] = [
    ("or_genre", &GENRES),
    (
        "also_director",
        &["Spielberg", "Scorsese", "Zemeckis", "Coppola"],
    ),
];

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::sample::select(pool).prop_map(str::to_string)
}

/// A query mixing a few conjunctive, disjunctive and ordering parameters (each present with
/// probability 0.25), without paging.
fn query() -> impl Strategy<Value = Vec<(String, String)>> {
    let all: Vec<(&'static str, &'static [&'static str])> = CONJUNCTIVE
        .into_iter()
        .chain(DISJUNCTIVE)
        .chain([("sort", &SORTS as &[&str]), ("nulls", &NULLS as &[&str])])
        .collect();
    all.into_iter()
        .map(|(name, pool)| {
            proptest::option::weighted(0.25, pick(pool))
                .prop_map(move |v| v.map(|v| (name.to_string(), v)))
        })
        .collect::<Vec<_>>()
        .prop_map(|ps| ps.into_iter().flatten().collect())
}

fn without(q: &[(String, String)], names: &[&str]) -> Vec<(String, String)> {
    q.iter()
        .filter(|(k, _)| !names.contains(&k.as_str()))
        .cloned()
        .collect()
}

fn with(q: &[(String, String)], name: &str, value: &str) -> Vec<(String, String)> {
    let mut q = without(q, &[name]);
    q.push((name.to_string(), value.to_string()));
    q
}

fn s(q: &[(String, String)]) -> BTreeSet<usize> {
    set(&search(q, None).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn adding_a_conjunctive_filter_gives_a_subset(base in query(), i in 0..CONJUNCTIVE.len(), j in any::<prop::sample::Index>()) {
        let (name, pool) = CONJUNCTIVE[i];
        let src = without(&base, &[name]);
        let fu = with(&src, name, pool[j.index(pool.len())]);
        prop_assert!(s(&fu).is_subset(&s(&src)));
    }

    #[test]
    fn adding_a_disjunctive_filter_gives_a_superset(base in query(), i in 0..DISJUNCTIVE.len(), j in any::<prop::sample::Index>()) {
        let (name, pool) = DISJUNCTIVE[i];
        let src = without(&base, &[name]);
        let fu = with(&src, name, pool[j.index(pool.len())]);
        prop_assert!(s(&fu).is_superset(&s(&src)));
    }

    #[test]
    fn genre_and_rating_partition_their_all_value(base in query()) {
        for (name, values, all) in [("genre", &GENRES[..], None), ("rating", &RATINGS[..6], Some("any"))] {
            let src = without(&base, &[name]);
            let everything = match all {
                Some(a) => s(&with(&src, name, a)),
                None => s(&src),
            };
            let parts: Vec<BTreeSet<usize>> = values.iter().map(|v| s(&with(&src, name, v))).collect();
            let mut union = BTreeSet::new();
            for p in &parts {
                prop_assert!(union.is_disjoint(p), "{name} values overlap");
                union.extend(p);
            }
            prop_assert_eq!(union, everything);
        }
    }

    #[test]
    fn sort_and_nulls_change_only_the_order(base in query()) {
        let src = without(&base, &["sort", "nulls"]);
        let want = s(&src);
        for sort in SORTS {
            for nulls in NULLS {
                prop_assert_eq!(&s(&with(&with(&src, "sort", sort), "nulls", nulls)), &want);
            }
        }
    }

    #[test]
    fn adding_a_default_changes_nothing(base in query()) {
        for name in ["sort", "nulls", "offset"] {
            let src = without(&base, &[name]);
            let d = default_value(name).unwrap();
            prop_assert_eq!(search(&with(&src, name, d), None).unwrap(), search(&src, None).unwrap());
        }
    }

    #[test]
    fn offset_and_limit_slice_the_full_result(base in query(), offset in 0usize..400, limit in 0usize..50) {
        let full = search(&base, None).unwrap();
        let paged = search(&with(&with(&base, "offset", &offset.to_string()), "limit", &limit.to_string()), None).unwrap();
        prop_assert_eq!(paged.total, full.total);
        let end = full.items.len().min(offset + limit);
        prop_assert_eq!(&paged.items[..], &full.items[offset.min(end)..end]);
    }

    #[test]
    fn never_panics_on_any_input(
        params in prop::collection::vec((prop_oneof![pick(&PARAMETERS), any::<String>()], prop_oneof![
            any::<String>(),
            Just(u64::MAX.to_string()),
            Just(i64::MIN.to_string()),
            Just("1e308".to_string()),
        ]), 0..5),
        m in prop::sample::select(Mutant::ALL.to_vec()),
    ) {
        let _ = search(&params, None);
        let _ = search(&params, Some(m));
    }
}
