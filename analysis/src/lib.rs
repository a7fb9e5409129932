//! Analysis of stored results: statistics, tables, plots and the HTML report.
//!
//! Not built yet (issue 3). Today `rigor results` exports the raw long table directly.
