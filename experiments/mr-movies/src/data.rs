//! The embedded movies dataset (vega-datasets 2.11.0, `data/movies.json`; see `data/NOTE.md`).

use std::sync::OnceLock;

use serde::Deserialize;

const MOVIES_JSON: &str = include_str!("../data/movies.json");

/// One movie. `id` is its 0-based index in `movies.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Movie {
    pub id: usize,
    pub title: Option<String>,
    /// The last four characters of "Release Date", when they are digits.
    pub year: Option<i64>,
    pub director: Option<String>,
    /// "Major Genre".
    pub genre: Option<String>,
    /// "MPAA Rating" as written (includes two `Open`, which no `rating` value but absence selects).
    pub mpaa: Option<String>,
    /// "IMDB Rating".
    pub imdb: Option<f64>,
    /// "IMDB Votes".
    pub votes: Option<i64>,
    /// "Worldwide Gross".
    pub gross: Option<i64>,
    /// Lower-cased title and director for case-insensitive matching; "" when null.
    pub(crate) title_lc: String,
    pub(crate) director_lc: String,
}

#[derive(Deserialize)]
struct Raw {
    // Nine titles are JSON numbers (`1776`, `300`, ...).
    #[serde(rename = "Title")]
    title: Option<serde_json::Value>,
    #[serde(rename = "Release Date")]
    release_date: Option<String>,
    #[serde(rename = "Director")]
    director: Option<String>,
    #[serde(rename = "Major Genre")]
    genre: Option<String>,
    #[serde(rename = "MPAA Rating")]
    mpaa: Option<String>,
    #[serde(rename = "IMDB Rating")]
    imdb: Option<f64>,
    #[serde(rename = "IMDB Votes")]
    votes: Option<i64>,
    #[serde(rename = "Worldwide Gross")]
    gross: Option<i64>,
}

/// Every movie, in file order (so `movies()[id].id == id`).
pub fn movies() -> &'static [Movie] {
    static MOVIES: OnceLock<Vec<Movie>> = OnceLock::new();
    MOVIES.get_or_init(|| {
        // The data is compiled in and checked by a unit test, so this cannot fail at run time.
        let raw: Vec<Raw> = serde_json::from_str(MOVIES_JSON).expect("embedded movies.json parses");
        raw.into_iter()
            .enumerate()
            .map(|(id, r)| movie(id, r))
            .collect()
    })
}

fn movie(id: usize, r: Raw) -> Movie {
    let title = match r.title {
        Some(serde_json::Value::String(s)) => Some(s),
        Some(serde_json::Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    Movie {
        id,
        title_lc: title.as_deref().unwrap_or("").to_lowercase(),
        director_lc: r.director.as_deref().unwrap_or("").to_lowercase(),
        title,
        year: r.release_date.as_deref().and_then(year),
        director: r.director,
        genre: r.genre,
        mpaa: r.mpaa,
        imdb: r.imdb,
        votes: r.votes,
        gross: r.gross,
    }
}

/// The year of a date like "Jun 12 1998": its last four characters, if they are all digits.
fn year(date: &str) -> Option<i64> {
    let tail = date.len().checked_sub(4).and_then(|i| date.get(i..))?;
    if tail.bytes().all(|b| b.is_ascii_digit()) {
        tail.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_loads_with_stable_ids() {
        let m = movies();
        assert_eq!(m.len(), 3201);
        assert!(m.iter().enumerate().all(|(i, x)| x.id == i));
        assert_eq!(m[0].title.as_deref(), Some("The Land Girls"));
        assert_eq!(m[0].year, Some(1998));
        assert_eq!(m[0].mpaa.as_deref(), Some("R"));
        assert_eq!(m[0].imdb, Some(6.1));
        assert!(m.iter().any(|x| x.title.as_deref() == Some("1776")));
        assert_eq!(m.iter().filter(|x| x.title.is_none()).count(), 1);
        assert!(m.iter().all(|x| x.year.is_some()));
    }

    #[test]
    fn odd_dates_have_no_year() {
        assert_eq!(year("Jun 12 1998"), Some(1998));
        for bad in ["", "98", "Jun 12 98x", "TBD", "Dec 1 19é8", "é998", "+998"] {
            assert_eq!(year(bad), None, "{bad:?}");
        }
    }
}
