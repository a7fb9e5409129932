//! Seeded faults. Each variant is one realistic bug, selected at start-up by its kebab-case name.
//!
//! "Reveals" names the MRG relation patterns (Segura et al., MET 2022) expected to expose the fault
//! with the relations of `spec/movies.yml`: `CONJUNCTIVE_EXTEND`/`_CONTRACT` (adding a conjunctive
//! filter gives a subset / removing one a superset), `DISJUNCTIVE_EXTEND`/`_CONTRACT` (the
//! reverse), `DISJOINT_EXTEND` (changing a disjoint filter's value gives disjoint results),
//! `COMPLETE_EXTEND` (the union over a complete filter's values equals the "all" result),
//! `EQUIVALENCE_EXTEND` (adding a parameter with its default changes nothing, order included),
//! `SHUFFLING_EXTEND`/`_CONTRACT` (changing or removing the ordering keeps the same items).
//! Faults that only narrow a filter monotonically keep every subset/superset relation true; they
//! are listed as expected survivors (no pattern), a control for the study.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutant {
    /// Off-by-one: `max_year` is exclusive (`year < max_year`). Reveals: none (a narrower filter
    /// keeps every subset relation); expected survivor.
    MaxYearExclusive,
    /// `or_genre` is AND-ed with the other filters instead of OR-ed. Reveals: DISJUNCTIVE_EXTEND
    /// and DISJUNCTIVE_CONTRACT (adding `or_genre` shrinks the results).
    OrGenreAsAnd,
    /// `also_director` replaces the conjunctive filters instead of adding to them (results are
    /// "director matches OR or_genre matches" only). Reveals: DISJUNCTIVE_EXTEND/_CONTRACT.
    AlsoDirectorReplaces,
    /// `rating` is validated but never applied. Reveals: DISJOINT_EXTEND (`rating=G` and
    /// `rating=PG` return the same movies).
    IgnoreRating,
    /// `title` is ignored whenever `director` is also given. Reveals: CONJUNCTIVE_EXTEND/_CONTRACT
    /// (adding `director` to a `title` query brings in movies without the title).
    TitleIgnoredWithDirector,
    /// `title` is matched case-sensitively (`love` no longer finds "Love Actually"). Reveals:
    /// none (monotone narrowing); expected survivor.
    CaseSensitiveTitle,
    /// Movies with a null IMDB rating pass the `min_imdb`/`max_imdb` range as if rated 0.0, so
    /// `max_imdb` alone lets them through. Reveals: none (still a monotone filter); expected
    /// survivor.
    NullImdbLeak,
    /// `genre` matches by substring: `Comedy` also returns "Black Comedy" and "Romantic Comedy"
    /// (also for `or_genre`). Reveals: DISJOINT_EXTEND.
    GenreSubstring,
    /// `rating` matches by prefix: `PG` also returns PG-13 movies. Reveals: DISJOINT_EXTEND.
    RatingPrefix,
    /// Absent `genre` ("all genres") is built from a list that misses Western. Reveals:
    /// CONJUNCTIVE_EXTEND/_CONTRACT (adding `genre=Western` brings in new movies);
    /// COMPLETE_EXTEND on `genre` if a generator uses a 13-value complete filter.
    AllGenresDropWestern,
    /// `rating=any` leaves out NC-17. Reveals: COMPLETE_EXTEND on `rating` (from a source test with
    /// `rating=any` whose result holds an NC-17 movie, e.g. Test-16).
    AnyRatingDropsNc17,
    /// When `sort` is absent results are ordered `year_desc`, not the documented `title_asc`.
    /// Reveals: EQUIVALENCE_EXTEND (adding `sort=title_asc` changes the order).
    DefaultSortYearDesc,
    /// The sort keeps one movie per sort key (as if results were collected into a map keyed by
    /// it): ties collapse. Reveals: SHUFFLING_EXTEND/_CONTRACT (other sorts keep other movies),
    /// CONJUNCTIVE_* and DISJUNCTIVE_EXTEND (a filter change can uncover a movie the collapse hid).
    SortTiesCollapse,
    /// `year_asc` sorts newest first: the direction is ignored for the year key. Reveals: none
    /// (shuffling relations compare sets; the default sort is not by year); expected survivor.
    YearSortIgnoresDirection,
    /// `sort=imdb_desc` drops movies without an IMDB rating (an inner join on the ratings).
    /// Reveals: SHUFFLING_EXTEND/_CONTRACT.
    ImdbSortDropsNulls,
    /// A given `offset` skips one movie too many. Reveals: only a paging relation (offset k is
    /// item k of the unpaged list), not an MRG pattern; expected survivor.
    OffsetOffByOne,
    /// Without `limit`, `items` is silently cut to the first 100 (`total` stays right). Reveals:
    /// CONJUNCTIVE_EXTEND/_CONTRACT, DISJUNCTIVE_EXTEND, SHUFFLING_* on queries with over 100
    /// results.
    Cap100,
}

/// Not a mutant name.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown mutant {0:?} (known: {known})", known = Mutant::ALL.map(|m| m.name()).join(", "))]
pub struct UnknownMutant(pub String);

impl Mutant {
    pub const ALL: [Mutant; 17] = [
        Mutant::MaxYearExclusive,
        Mutant::OrGenreAsAnd,
        Mutant::AlsoDirectorReplaces,
        Mutant::IgnoreRating,
        Mutant::TitleIgnoredWithDirector,
        Mutant::CaseSensitiveTitle,
        Mutant::NullImdbLeak,
        Mutant::GenreSubstring,
        Mutant::RatingPrefix,
        Mutant::AllGenresDropWestern,
        Mutant::AnyRatingDropsNc17,
        Mutant::DefaultSortYearDesc,
        Mutant::SortTiesCollapse,
        Mutant::YearSortIgnoresDirection,
        Mutant::ImdbSortDropsNulls,
        Mutant::OffsetOffByOne,
        Mutant::Cap100,
    ];

    /// The kebab-case name used to select it.
    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// What is wrong, in one sentence.
    pub fn description(self) -> &'static str {
        self.info().1
    }

    /// The MRG patterns expected to reveal it; empty for expected survivors.
    pub fn revealed_by(self) -> &'static [&'static str] {
        self.info().2
    }

    fn info(self) -> (&'static str, &'static str, &'static [&'static str]) {
        const CONJ: &[&str] = &["CONJUNCTIVE_EXTEND", "CONJUNCTIVE_CONTRACT"];
        const DISJ: &[&str] = &["DISJUNCTIVE_EXTEND", "DISJUNCTIVE_CONTRACT"];
        const SHUF: &[&str] = &["SHUFFLING_EXTEND", "SHUFFLING_CONTRACT"];
        match self {
            Mutant::MaxYearExclusive => {
                ("max-year-exclusive", "max_year is an exclusive bound", &[])
            }
            Mutant::OrGenreAsAnd => (
                "or-genre-as-and",
                "or_genre is AND-ed with the other filters",
                DISJ,
            ),
            Mutant::AlsoDirectorReplaces => (
                "also-director-replaces",
                "also_director replaces the conjunctive filters instead of OR-ing with them",
                DISJ,
            ),
            Mutant::IgnoreRating => (
                "ignore-rating",
                "the rating filter is silently ignored",
                &["DISJOINT_EXTEND"],
            ),
            Mutant::TitleIgnoredWithDirector => (
                "title-ignored-with-director",
                "title is ignored when director is also given",
                CONJ,
            ),
            Mutant::CaseSensitiveTitle => (
                "case-sensitive-title",
                "title matching is case-sensitive",
                &[],
            ),
            Mutant::NullImdbLeak => (
                "null-imdb-leak",
                "movies without an IMDB rating pass the imdb range as 0.0",
                &[],
            ),
            Mutant::GenreSubstring => (
                "genre-substring",
                "genre matches by substring (Comedy also finds Black Comedy)",
                &["DISJOINT_EXTEND"],
            ),
            Mutant::RatingPrefix => (
                "rating-prefix",
                "rating matches by prefix (PG also finds PG-13)",
                &["DISJOINT_EXTEND"],
            ),
            Mutant::AllGenresDropWestern => (
                "all-genres-drop-western",
                "absent genre (all genres) leaves out Western",
                &[
                    "CONJUNCTIVE_EXTEND",
                    "CONJUNCTIVE_CONTRACT",
                    "COMPLETE_EXTEND",
                ],
            ),
            Mutant::AnyRatingDropsNc17 => (
                "any-rating-drops-nc17",
                "rating=any leaves out NC-17",
                &["COMPLETE_EXTEND"],
            ),
            Mutant::DefaultSortYearDesc => (
                "default-sort-year-desc",
                "absent sort orders by year_desc instead of the documented title_asc",
                &["EQUIVALENCE_EXTEND"],
            ),
            Mutant::SortTiesCollapse => (
                "sort-ties-collapse",
                "sorting keeps one movie per sort key (ties collapse)",
                &[
                    "SHUFFLING_EXTEND",
                    "SHUFFLING_CONTRACT",
                    "CONJUNCTIVE_EXTEND",
                    "CONJUNCTIVE_CONTRACT",
                    "DISJUNCTIVE_EXTEND",
                ],
            ),
            Mutant::YearSortIgnoresDirection => (
                "year-sort-ignores-direction",
                "year_asc sorts newest first",
                &[],
            ),
            Mutant::ImdbSortDropsNulls => (
                "imdb-sort-drops-nulls",
                "sort=imdb_desc drops movies without an IMDB rating",
                SHUF,
            ),
            Mutant::OffsetOffByOne => (
                "offset-off-by-one",
                "a given offset skips one movie too many",
                &[],
            ),
            Mutant::Cap100 => (
                "cap-100",
                "without limit, items are silently cut to 100",
                &[
                    "CONJUNCTIVE_EXTEND",
                    "CONJUNCTIVE_CONTRACT",
                    "DISJUNCTIVE_EXTEND",
                    "SHUFFLING_EXTEND",
                    "SHUFFLING_CONTRACT",
                ],
            ),
        }
    }
}

impl FromStr for Mutant {
    type Err = UnknownMutant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mutant::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMutant(s.to_string()))
    }
}

impl fmt::Display for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_round_trip_and_are_unique_kebab_case() {
        let mut seen = HashSet::new();
        for m in Mutant::ALL {
            assert!(seen.insert(m.name()), "duplicate {m}");
            assert!(m
                .name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
            assert_eq!(m.name().parse::<Mutant>(), Ok(m));
            assert!(!m.description().is_empty());
        }
        let e = "nope".parse::<Mutant>().unwrap_err();
        assert!(e.to_string().contains("cap-100"), "{e}");
    }
}
