//! `GET /search` as a pure function: parameters in, [`Response`] or [`QueryError`] out.
//!
//! Result = (every text/range filter holds OR `or_genre` matches OR `also_director` matches)
//! AND `genre` AND `rating`; an OR arm only counts when given. Then sort (ties by id), count
//! `total`, and page with `offset`/`limit`. See README.md for each parameter.

use std::cmp::Ordering;

use serde::Serialize;
use thiserror::Error;

use crate::data::{movies, Movie};
use crate::mutant::Mutant;

/// `genre` / `or_genre` values: the distinct non-null "Major Genre" values, alphabetical, then
/// `Unknown` (genre is null). Absent `genre` = all movies = the union over these values.
pub const GENRES: [&str; 13] = [
    "Action",
    "Adventure",
    "Black Comedy",
    "Comedy",
    "Concert/Performance",
    "Documentary",
    "Drama",
    "Horror",
    "Musical",
    "Romantic Comedy",
    "Thriller/Suspense",
    "Western",
    UNKNOWN,
];
const UNKNOWN: &str = "Unknown";

/// `rating` values: six MPAA ratings and `any` (= the union of the six; excludes movies whose
/// rating is null or "Open"). Absent `rating` = no filter.
pub const RATINGS: [&str; 7] = ["G", "PG", "PG-13", "R", "NC-17", "Not Rated", ANY];
const ANY: &str = "any";

/// `sort` values; the default is `title_asc`.
pub const SORTS: [&str; 6] = [
    "title_asc",
    "title_desc",
    "year_asc",
    "year_desc",
    "imdb_desc",
    "gross_desc",
];

/// `nulls` values (where movies without the sort key go); the default is `last`.
pub const NULLS: [&str; 2] = ["last", "first"];

/// Every parameter `/search` accepts, in documentation order.
pub const PARAMETERS: [&str; 15] = [
    "title",
    "director",
    "min_imdb",
    "max_imdb",
    "min_year",
    "max_year",
    "min_votes",
    "genre",
    "rating",
    "or_genre",
    "also_director",
    "sort",
    "nulls",
    "limit",
    "offset",
];

/// The enum values of a parameter, if it has an enum.
pub fn enum_values(parameter: &str) -> Option<&'static [&'static str]> {
    match parameter {
        "genre" | "or_genre" => Some(&GENRES),
        "rating" => Some(&RATINGS),
        "sort" => Some(&SORTS),
        "nulls" => Some(&NULLS),
        _ => None,
    }
}

/// The documented default of a parameter, if it has one. (`offset` defaults to 0, but the spec
/// deliberately does not declare it; `limit` has none: absent = all results.)
pub fn default_value(parameter: &str) -> Option<&'static str> {
    match parameter {
        "sort" => Some("title_asc"),
        "nulls" => Some("last"),
        "offset" => Some("0"),
        _ => None,
    }
}

/// The answer to one query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    /// Matches before paging.
    pub total: usize,
    pub items: Vec<Item>,
}

/// One result movie.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub id: usize,
    pub title: Option<String>,
    pub year: Option<i64>,
    pub director: Option<String>,
    pub genre: Option<String>,
    pub rating: Option<String>,
    pub imdb: Option<f64>,
    pub votes: Option<i64>,
    pub gross: Option<i64>,
}

/// A bad query: HTTP 400.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    #[error("unknown parameter {0:?}")]
    UnknownParameter(String),
    #[error("parameter {0:?} is given more than once")]
    Repeated(String),
    #[error("parameter {parameter:?}: {value:?} is not {expected}")]
    BadValue {
        parameter: String,
        value: String,
        expected: String,
    },
}

impl QueryError {
    /// The parameter at fault.
    pub fn parameter(&self) -> &str {
        match self {
            QueryError::UnknownParameter(p) | QueryError::Repeated(p) => p,
            QueryError::BadValue { parameter, .. } => parameter,
        }
    }
}

/// Answers `GET /search?<params>`, with the seeded fault `mutant` if any.
pub fn search(params: &[(String, String)], mutant: Option<Mutant>) -> Result<Response, QueryError> {
    let q = Query::parse(params)?;
    let is = |m: Mutant| mutant == Some(m);
    let mut hits: Vec<&Movie> = movies().iter().filter(|m| q.matches(m, mutant)).collect();

    let default_sort = if is(Mutant::DefaultSortYearDesc) {
        Sort::YearDesc
    } else {
        Sort::TitleAsc
    };
    let sort = q.sort.unwrap_or(default_sort);
    if sort == Sort::ImdbDesc && is(Mutant::ImdbSortDropsNulls) {
        hits.retain(|m| m.imdb.is_some());
    }
    let nulls_first = q.nulls_first.unwrap_or(false);
    let key = |a: &Movie, b: &Movie| key_cmp(a, b, sort, nulls_first, mutant);
    // Ties broken by id: the order is total, so every query has exactly one right answer.
    hits.sort_by(|a, b| key(a, b).then(a.id.cmp(&b.id)));
    if is(Mutant::SortTiesCollapse) {
        hits.dedup_by(|a, b| key(a, b) == Ordering::Equal);
    }

    let total = hits.len();
    let offset = match q.offset {
        Some(o) if is(Mutant::OffsetOffByOne) => o.saturating_add(1),
        o => o.unwrap_or(0),
    };
    let limit = match q.limit {
        None if is(Mutant::Cap100) => Some(100),
        l => l,
    };
    let items = hits
        .into_iter()
        .skip(offset)
        .take(limit.unwrap_or(usize::MAX))
        .map(item)
        .collect();
    Ok(Response { total, items })
}

fn item(m: &Movie) -> Item {
    Item {
        id: m.id,
        title: m.title.clone(),
        year: m.year,
        director: m.director.clone(),
        genre: m.genre.clone(),
        rating: m.mpaa.clone(),
        imdb: m.imdb,
        votes: m.votes,
        gross: m.gross,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    TitleAsc,
    TitleDesc,
    YearAsc,
    YearDesc,
    ImdbDesc,
    GrossDesc,
}

/// A text filter as given and lower-cased.
#[derive(Debug, Default)]
struct Text {
    raw: String,
    lc: String,
}

/// A parsed query; `None` = parameter absent.
#[derive(Debug, Default)]
struct Query {
    title: Option<Text>,
    director: Option<Text>,
    min_imdb: Option<f64>,
    max_imdb: Option<f64>,
    min_year: Option<i64>,
    max_year: Option<i64>,
    min_votes: Option<i64>,
    genre: Option<&'static str>,
    rating: Option<&'static str>,
    or_genre: Option<&'static str>,
    also_director: Option<Text>,
    sort: Option<Sort>,
    nulls_first: Option<bool>,
    limit: Option<usize>,
    offset: Option<usize>,
}

impl Query {
    fn parse(params: &[(String, String)]) -> Result<Query, QueryError> {
        let mut q = Query::default();
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in params {
            if !PARAMETERS.contains(&name.as_str()) {
                return Err(QueryError::UnknownParameter(name.clone()));
            }
            if seen.contains(&name.as_str()) {
                return Err(QueryError::Repeated(name.clone()));
            }
            seen.push(name);
            let text = || Text {
                raw: value.clone(),
                lc: value.to_lowercase(),
            };
            match name.as_str() {
                "title" => q.title = Some(text()),
                "director" => q.director = Some(text()),
                "also_director" => q.also_director = Some(text()),
                "min_imdb" => q.min_imdb = Some(number(name, value)?),
                "max_imdb" => q.max_imdb = Some(number(name, value)?),
                "min_year" => q.min_year = Some(integer(name, value)?),
                "max_year" => q.max_year = Some(integer(name, value)?),
                "min_votes" => q.min_votes = Some(integer(name, value)?),
                "limit" => q.limit = Some(count(name, value)?),
                "offset" => q.offset = Some(count(name, value)?),
                "genre" => q.genre = Some(one_of(name, value)?),
                "or_genre" => q.or_genre = Some(one_of(name, value)?),
                "rating" => q.rating = Some(one_of(name, value)?),
                "sort" => {
                    q.sort = Some(match one_of(name, value)? {
                        "title_desc" => Sort::TitleDesc,
                        "year_asc" => Sort::YearAsc,
                        "year_desc" => Sort::YearDesc,
                        "imdb_desc" => Sort::ImdbDesc,
                        "gross_desc" => Sort::GrossDesc,
                        _ => Sort::TitleAsc,
                    })
                }
                "nulls" => q.nulls_first = Some(one_of(name, value)? == "first"),
                _ => {}
            }
        }
        Ok(q)
    }

    /// (text and range filters OR `or_genre` OR `also_director`) AND the genre/rating facets.
    fn matches(&self, m: &Movie, mutant: Option<Mutant>) -> bool {
        let narrow = self.narrowing_filters_hold(m, mutant);
        let or_genre = self.or_genre.map(|g| genre_is(m, g, mutant));
        let also = self
            .also_director
            .as_ref()
            .map(|d| m.director_lc.contains(&d.lc));
        let widened = match mutant {
            Some(Mutant::OrGenreAsAnd) => {
                (narrow && or_genre.unwrap_or(true)) || also == Some(true)
            }
            Some(Mutant::AlsoDirectorReplaces) if also.is_some() => {
                also == Some(true) || or_genre == Some(true)
            }
            _ => narrow || or_genre == Some(true) || also == Some(true),
        };
        widened && self.facets_hold(m, mutant)
    }

    /// The text and range filters (`title` ... `min_votes`).
    fn narrowing_filters_hold(&self, m: &Movie, mutant: Option<Mutant>) -> bool {
        let is = |x: Mutant| mutant == Some(x);
        if let Some(t) = &self.title {
            let hit = if is(Mutant::CaseSensitiveTitle) {
                m.title.as_deref().unwrap_or("").contains(&t.raw)
            } else {
                m.title_lc.contains(&t.lc)
            };
            let ignored = is(Mutant::TitleIgnoredWithDirector) && self.director.is_some();
            if !hit && !ignored {
                return false;
            }
        }
        if let Some(d) = &self.director {
            if !m.director_lc.contains(&d.lc) {
                return false;
            }
        }
        if self.min_imdb.is_some() || self.max_imdb.is_some() {
            let r = match m.imdb {
                Some(r) => r,
                None if is(Mutant::NullImdbLeak) => 0.0,
                None => return false,
            };
            if self.min_imdb.is_some_and(|lo| r < lo) || self.max_imdb.is_some_and(|hi| r > hi) {
                return false;
            }
        }
        if self.min_year.is_some() || self.max_year.is_some() {
            let Some(y) = m.year else { return false };
            let over = |hi: i64| y > hi || (is(Mutant::MaxYearExclusive) && y == hi);
            if self.min_year.is_some_and(|lo| y < lo) || self.max_year.is_some_and(over) {
                return false;
            }
        }
        if let Some(lo) = self.min_votes {
            if m.votes.is_none_or(|v| v < lo) {
                return false;
            }
        }
        true
    }

    /// `genre` and `rating`. They restrict the whole result, widened part included, so that
    /// different values always give disjoint results (a facet, as on a search page).
    fn facets_hold(&self, m: &Movie, mutant: Option<Mutant>) -> bool {
        let is = |x: Mutant| mutant == Some(x);
        match self.genre {
            Some(g) if !genre_is(m, g, mutant) => return false,
            None if is(Mutant::AllGenresDropWestern) && m.genre.as_deref() == Some("Western") => {
                return false
            }
            _ => {}
        }
        if let Some(r) = self.rating {
            if !is(Mutant::IgnoreRating) && !rating_is(m, r, mutant) {
                return false;
            }
        }
        true
    }
}

fn genre_is(m: &Movie, g: &str, mutant: Option<Mutant>) -> bool {
    match m.genre.as_deref() {
        None => g == UNKNOWN,
        Some(x) if mutant == Some(Mutant::GenreSubstring) => x.contains(g),
        Some(x) => x == g,
    }
}

fn rating_is(m: &Movie, r: &str, mutant: Option<Mutant>) -> bool {
    let Some(x) = m.mpaa.as_deref() else {
        return false;
    };
    if r == ANY {
        RATINGS[..6].contains(&x) && !(mutant == Some(Mutant::AnyRatingDropsNc17) && x == "NC-17")
    } else if mutant == Some(Mutant::RatingPrefix) {
        x.starts_with(r)
    } else {
        x == r
    }
}

/// Compares by the sort key only (not by id).
fn key_cmp(
    a: &Movie,
    b: &Movie,
    sort: Sort,
    nulls_first: bool,
    mutant: Option<Mutant>,
) -> Ordering {
    let desc = match sort {
        Sort::TitleAsc => false,
        Sort::YearAsc => mutant == Some(Mutant::YearSortIgnoresDirection),
        Sort::TitleDesc | Sort::YearDesc | Sort::ImdbDesc | Sort::GrossDesc => true,
    };
    let (order, a_null, b_null) = match sort {
        Sort::TitleAsc | Sort::TitleDesc => (
            a.title_lc.cmp(&b.title_lc),
            a.title.is_none(),
            b.title.is_none(),
        ),
        Sort::YearAsc | Sort::YearDesc => (a.year.cmp(&b.year), a.year.is_none(), b.year.is_none()),
        Sort::ImdbDesc => (
            a.imdb.unwrap_or(0.0).total_cmp(&b.imdb.unwrap_or(0.0)),
            a.imdb.is_none(),
            b.imdb.is_none(),
        ),
        Sort::GrossDesc => (a.gross.cmp(&b.gross), a.gross.is_none(), b.gross.is_none()),
    };
    match (a_null, b_null) {
        (false, false) if desc => order.reverse(),
        (false, false) => order,
        (true, true) => Ordering::Equal,
        // Nulls go last (first with nulls=first) whatever the direction.
        (true, false) if nulls_first => Ordering::Less,
        (true, false) => Ordering::Greater,
        (false, true) if nulls_first => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

fn number(parameter: &str, value: &str) -> Result<f64, QueryError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| bad(parameter, value, "a number"))
}

fn integer(parameter: &str, value: &str) -> Result<i64, QueryError> {
    value
        .parse()
        .map_err(|_| bad(parameter, value, "an integer"))
}

fn count(parameter: &str, value: &str) -> Result<usize, QueryError> {
    value
        .parse()
        .map_err(|_| bad(parameter, value, "a non-negative integer"))
}

fn one_of(parameter: &str, value: &str) -> Result<&'static str, QueryError> {
    let values = enum_values(parameter).unwrap_or(&[]);
    values
        .iter()
        .copied()
        .find(|v| *v == value)
        .ok_or_else(|| bad(parameter, value, &format!("one of {}", values.join(", "))))
}

fn bad(parameter: &str, value: &str, expected: &str) -> QueryError {
    QueryError::BadValue {
        parameter: parameter.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    }
}

#[cfg(test)]
mod tests;
