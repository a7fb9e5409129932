//! The insurance-application validation service: a correct version and 13 faulty ones.
//!
//! An application is one value index per parameter of [`crate::model()`]. The service decodes it
//! with its own value table (a test checks it against the model) and evaluates 31 validation
//! rules in order, each `is_applicable(application) ⇒ is_valid(application)`. The first violated
//! rule's error code (`E01`..`E31`) is returned and no later rule is evaluated: a test violating
//! two rules shows only the first, which is the input masking combinatorial robustness testing
//! guards against with strong invalid tests. Rule `i` checks exactly what error constraint `i` of
//! the model states, written here as plain Rust rather than by evaluating the model's expressions.
//!
//! Malformed input (wrong length, value index out of range) is answered with the error code
//! [`MALFORMED`] (`E00`) by every version; `respond` never panics.

/// Error code for an application that is not one value index per parameter.
pub const MALFORMED: &str = "E00";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Response {
    Success,
    /// The error code of the first violated rule (`E01`..`E31`), or [`MALFORMED`].
    Error(&'static str),
}

impl Response {
    /// The error code, if any.
    pub fn code(self) -> Option<&'static str> {
        match self {
            Response::Success => None,
            Response::Error(c) => Some(c),
        }
    }
}

/// The three fault classes of the case study.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultClass {
    /// Error detection missing or wrong (a check removed or weakened, or the wrong error code):
    /// valid applications are handled correctly, only invalid ones reveal the fault.
    InvalidOnly,
    /// A rule's error condition is too strong: it also rejects some valid applications.
    TooStrong,
    /// A rule checks a parameter of similar meaning instead of the right one: too weak and too
    /// strong at once, so both valid and invalid applications can reveal it.
    WrongParameter,
}

impl FaultClass {
    pub fn name(self) -> &'static str {
        match self {
            FaultClass::InvalidOnly => "invalid-only",
            FaultClass::TooStrong => "too-strong",
            FaultClass::WrongParameter => "wrong-parameter",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    Correct,
    F01,
    F02,
    F03,
    F04,
    F05,
    F06,
    F07,
    F08,
    F09,
    F10,
    F11,
    F12,
    F13,
}

/// The faulty versions, in order.
pub const FAULTS: [Version; 13] = [
    Version::F01,
    Version::F02,
    Version::F03,
    Version::F04,
    Version::F05,
    Version::F06,
    Version::F07,
    Version::F08,
    Version::F09,
    Version::F10,
    Version::F11,
    Version::F12,
    Version::F13,
];

impl Version {
    pub fn name(self) -> &'static str {
        match self {
            Version::Correct => "correct",
            Version::F01 => "f01-missing-country-check",
            Version::F02 => "f02-wrong-code-max-claims",
            Version::F03 => "f03-novice-deductible-boundary",
            Version::F04 => "f04-motorcycle-check-one-way",
            Version::F05 => "f05-life-smoker-age-threshold",
            Version::F06 => "f06-min-age-25",
            Version::F07 => "f07-quarterly-needs-sepa",
            Version::F08 => "f08-home-requires-house",
            Version::F09 => "f09-licence-plausibility-too-strict",
            Version::F10 => "f10-driver-age-for-min-age",
            Version::F11 => "f11-phone-instead-of-email",
            Version::F12 => "f12-previous-insurer-for-invoice",
            Version::F13 => "f13-alarm-instead-of-garage",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Version::Correct => "the correct service: 31 rules in order, first violation reported",
            Version::F01 => "rule E02 is missing: applications from an unsupported country (XX) are accepted",
            Version::F02 => "rule E09 (at most 3 claims in 5 years) reports error code E10 instead of E09",
            Version::F03 => "rule E28 requires a deductible of at least 250 instead of 500 for novice drivers (licence_years = 0) of a vehicle: a deductible of 250 is accepted",
            Version::F04 => "rule E17 checks only that a motorcycle is insured under the motorcycle product, not that the motorcycle product insures a motorcycle: product motorcycle with vehicle car is accepted",
            Version::F05 => "rule E31 applies to smokers from age 70 instead of 45: a 45-year-old smoker's high life cover without good health is accepted",
            Version::F06 => "rule E01 requires the applicant to be at least 25 instead of 18: 18-year-olds are rejected",
            Version::F07 => "rule E23 requires SEPA direct debit for quarterly payment as well as monthly: quarterly payment by card or invoice is rejected",
            Version::F08 => "rule E21 requires a house for home insurance: apartments are rejected",
            Version::F09 => "rule E18 allows at most 1 licence year for drivers up to 25 (instead of up to 18): a 25-year-old with 5 licence years is rejected",
            Version::F10 => "rule E01 checks driver_age instead of applicant_age: a 17-year-old applicant with an adult driver is accepted, an adult applicant with a 17-year-old driver is rejected",
            Version::F11 => "rule E20 checks the phone instead of the email for online applications: online without email but with phone is accepted, online with email but without phone is rejected",
            Version::F12 => "rule E22 checks previous_insurer instead of existing_customer for payment by invoice",
            Version::F13 => "rule E30 accepts young drivers with claims and a low deductible when they have an alarm system instead of a garage",
        }
    }

    /// The fault class; `None` for [`Version::Correct`].
    pub fn class(self) -> Option<FaultClass> {
        use Version::*;
        match self {
            Correct => None,
            F01 | F02 | F03 | F04 | F05 => Some(FaultClass::InvalidOnly),
            F06 | F07 | F08 | F09 => Some(FaultClass::TooStrong),
            F10 | F11 | F12 | F13 => Some(FaultClass::WrongParameter),
        }
    }

    /// Index (0-based) of the rule / error constraint the fault is in; `None` for
    /// [`Version::Correct`].
    pub fn rule(self) -> Option<usize> {
        use Version::*;
        let code = match self {
            Correct => return None,
            F01 => 2,
            F02 => 9,
            F03 => 28,
            F04 => 17,
            F05 => 31,
            F06 => 1,
            F07 => 23,
            F08 => 21,
            F09 => 18,
            F10 => 1,
            F11 => 20,
            F12 => 22,
            F13 => 30,
        };
        Some(code - 1)
    }
}

/// The service's own value table, in parameter order (yes/no parameters are `["no", "yes"]`).
pub(crate) const SCHEMA: [(&str, &[&str]); 32] = [
    ("country", &["DE", "AT", "CH", "FR", "IT", "NL", "BE", "LU", "XX"]),
    ("applicant_age", &["17", "18", "25", "45", "70", "99"]),
    ("product", &["car", "motorcycle", "home", "travel", "life", "health"]),
    ("payment_frequency", &["annual", "semiannual", "quarterly", "monthly", "weekly"]),
    ("vehicle_type", &["none", "car", "motorcycle", "truck"]),
    ("driver_age", &["17", "18", "25", "70"]),
    ("licence_years", &["0", "1", "5", "20"]),
    ("claims_5y", &["0", "1", "3", "6"]),
    ("occupation", &["employee", "self_employed", "student", "unspecified"]),
    ("marital_status", &["single", "married", "divorced", "widowed"]),
    ("deductible", &["0", "250", "1000", "5000"]),
    ("sum_insured", &["10000", "100000", "1000000", "10000000"]),
    ("gender", &["female", "male", "diverse"]),
    ("payment_method", &["sepa", "card", "invoice"]),
    ("channel", &["online", "agent", "phone"]),
    ("email", &["valid", "missing", "malformed"]),
    ("phone", &["valid", "missing", "malformed"]),
    ("health_status", &["good", "preexisting", "severe"]),
    ("start_date", &["past", "today", "future"]),
    ("building_type", &["none", "apartment", "house"]),
    ("existing_customer", &["no", "yes"]),
    ("data_consent", &["no", "yes"]),
    ("terms_accepted", &["no", "yes"]),
    ("newsletter", &["no", "yes"]),
    ("garage", &["no", "yes"]),
    ("second_driver", &["no", "yes"]),
    ("commercial_use", &["no", "yes"]),
    ("smoker", &["no", "yes"]),
    ("iban_valid", &["no", "yes"]),
    ("previous_insurer", &["no", "yes"]),
    ("winter_sports", &["no", "yes"]),
    ("alarm_system", &["no", "yes"]),
];

/// A decoded application. `marital_status`, `gender`, `newsletter` and `winter_sports` are read
/// by no rule and left out.
pub(crate) struct Application {
    country: &'static str,
    applicant_age: u32,
    product: &'static str,
    payment_frequency: &'static str,
    vehicle_type: &'static str,
    driver_age: u32,
    licence_years: u32,
    claims_5y: u32,
    occupation: &'static str,
    deductible: u32,
    sum_insured: u64,
    payment_method: &'static str,
    channel: &'static str,
    email: &'static str,
    phone: &'static str,
    health_status: &'static str,
    start_date: &'static str,
    building_type: &'static str,
    existing_customer: bool,
    data_consent: bool,
    terms_accepted: bool,
    garage: bool,
    second_driver: bool,
    commercial_use: bool,
    smoker: bool,
    iban_valid: bool,
    previous_insurer: bool,
    alarm_system: bool,
}

/// `None` when the test is not one in-range value index per parameter.
pub(crate) fn decode(test: &[usize]) -> Option<Application> {
    if test.len() != SCHEMA.len() {
        return None;
    }
    let mut values = [""; 32];
    for (p, (&v, (_, domain))) in test.iter().zip(SCHEMA.iter()).enumerate() {
        values[p] = domain.get(v)?;
    }
    let text = |p: usize| values[p];
    let num = |p: usize| values[p].parse::<u32>().ok();
    let yes = |p: usize| values[p] == "yes";
    Some(Application {
        country: text(0),
        applicant_age: num(1)?,
        product: text(2),
        payment_frequency: text(3),
        vehicle_type: text(4),
        driver_age: num(5)?,
        licence_years: num(6)?,
        claims_5y: num(7)?,
        occupation: text(8),
        deductible: num(10)?,
        sum_insured: values[11].parse::<u64>().ok()?,
        payment_method: text(13),
        channel: text(14),
        email: text(15),
        phone: text(16),
        health_status: text(17),
        start_date: text(18),
        building_type: text(19),
        existing_customer: yes(20),
        data_consent: yes(21),
        terms_accepted: yes(22),
        garage: yes(24),
        second_driver: yes(25),
        commercial_use: yes(26),
        smoker: yes(27),
        iban_valid: yes(28),
        previous_insurer: yes(29),
        alarm_system: yes(31),
    })
}

/// Number of validation rules.
pub(crate) const RULES: usize = 31;

/// `is_applicable ⇒ is_valid`.
fn rule(applicable: bool, valid: bool) -> bool {
    !applicable || valid
}

/// Whether rule `r` (0-based: rule `r` reports `E{r+1}`) holds for `a` in `version`. Each
/// faulty version changes exactly one rule ([`Version::rule`]); every other rule is the correct
/// one.
pub(crate) fn rule_holds(version: Version, r: usize, a: &Application) -> bool {
    use Version::*;
    let v = version;
    let vehicle = a.vehicle_type != "none";
    match r + 1 {
        // E01 minimum age. F06: 25 instead of 18. F10: the driver's age instead of the applicant's.
        1 => match v {
            F06 => a.applicant_age >= 25,
            F10 => a.driver_age >= 18,
            _ => a.applicant_age >= 18,
        },
        // E02 supported country. F01: the check is missing.
        2 => v == F01 || a.country != "XX",
        3 => a.payment_frequency != "weekly",
        4 => a.email != "malformed",
        5 => a.phone != "malformed",
        6 => a.start_date != "past",
        7 => a.terms_accepted,
        8 => a.data_consent,
        // E09 at most 3 claims (F02 reports it under the wrong code, see `rule_code`).
        9 => a.claims_5y <= 3,
        10 => a.sum_insured <= 1_000_000,
        11 => a.deductible <= 1000,
        12 => a.occupation != "unspecified",
        13 => a.vehicle_type != "truck",
        14 => !a.commercial_use,
        15 => a.applicant_age <= 90,
        16 => rule(matches!(a.product, "car" | "motorcycle"), vehicle),
        // E17 a motorcycle exactly under the motorcycle product. F04: one direction only.
        17 => {
            let moto_vehicle = a.vehicle_type == "motorcycle";
            let moto_product = a.product == "motorcycle";
            rule(moto_vehicle || (moto_product && v != F04), moto_vehicle && moto_product)
        }
        // E18 licence years plausible for the driver's age. F09: the 18-year bound up to 25.
        18 => {
            rule(a.driver_age <= 18, a.licence_years <= 1)
                && rule(a.driver_age <= 25, a.licence_years <= if v == F09 { 1 } else { 5 })
        }
        19 => rule(a.payment_method == "sepa", a.iban_valid),
        // E20 online applications need an email. F11: checks the phone.
        20 => rule(a.channel == "online", if v == F11 { a.phone == "valid" } else { a.email == "valid" }),
        // E21 home insurance needs the building. F08: only houses.
        21 => rule(a.product == "home", if v == F08 { a.building_type == "house" } else { a.building_type != "none" }),
        // E22 invoice for existing customers only. F12: checks previous_insurer.
        22 => rule(a.payment_method == "invoice", if v == F12 { a.previous_insurer } else { a.existing_customer }),
        // E23 monthly payment by SEPA only. F07: quarterly too.
        23 => {
            let sepa_only = match v {
                F07 => matches!(a.payment_frequency, "monthly" | "quarterly"),
                _ => a.payment_frequency == "monthly",
            };
            rule(sepa_only, a.payment_method == "sepa")
        }
        24 => rule(a.product == "life" && a.sum_insured >= 1_000_000, a.applicant_age <= 45),
        25 => rule(matches!(a.product, "life" | "health") && a.applicant_age >= 70, a.health_status == "good"),
        26 => rule(a.driver_age <= 17 && a.vehicle_type == "car", a.second_driver),
        27 => rule(a.channel != "agent", a.email == "valid" || a.phone == "valid"),
        // E28 novice drivers need a deductible of 500. F03: 250 accepted.
        28 => rule(vehicle && a.licence_years == 0, a.deductible >= if v == F03 { 250 } else { 500 }),
        29 => rule(a.building_type == "house" && a.sum_insured >= 1_000_000, a.alarm_system),
        // E30 young drivers with claims: a deductible or a garage. F13: alarm system, not garage.
        30 => rule(
            vehicle && a.driver_age <= 25 && a.claims_5y >= 1,
            a.deductible >= 500 || if v == F13 { a.alarm_system } else { a.garage },
        ),
        // E31 older smokers' life cover needs good health. F05: from 70 instead of 45.
        31 => rule(
            a.product == "life" && a.smoker && a.applicant_age >= if v == F05 { 70 } else { 45 } && a.sum_insured >= 100_000,
            a.health_status == "good",
        ),
        _ => true,
    }
}

const CODES: [&str; RULES] = [
    "E01", "E02", "E03", "E04", "E05", "E06", "E07", "E08", "E09", "E10", "E11", "E12", "E13", "E14", "E15", "E16",
    "E17", "E18", "E19", "E20", "E21", "E22", "E23", "E24", "E25", "E26", "E27", "E28", "E29", "E30", "E31",
];

/// The error code rule `r` reports. F02: E09 is reported as E10.
pub(crate) fn rule_code(version: Version, r: usize) -> &'static str {
    if version == Version::F02 && r == 8 {
        "E10"
    } else {
        CODES[r]
    }
}

/// The rules in order; the code of the first violated one.
fn first_violation(version: Version, a: &Application) -> Option<&'static str> {
    (0..RULES).find(|&r| !rule_holds(version, r, a)).map(|r| rule_code(version, r))
}

/// The service's answer to one application (one value index per parameter of
/// [`crate::model()`]). Malformed input gives `Error("E00")`.
pub fn respond(version: Version, test: &[usize]) -> Response {
    match decode(test) {
        None => Response::Error(MALFORMED),
        Some(a) => match first_violation(version, &a) {
            None => Response::Success,
            Some(code) => Response::Error(code),
        },
    }
}

/// Runs `suite` against `version`: whether it detects the fault (some test's response differs
/// from the correct version's) and how many tests do (the failing tests). The correct version
/// is never detected.
pub fn evaluate(version: Version, suite: &[Vec<usize>]) -> (bool, usize) {
    let failing = suite.iter().filter(|t| respond(version, t) != respond(Version::Correct, t)).count();
    (failing > 0, failing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::model;
    use crate::search::{uniform, Search, XorShift};
    use rigor_ct::{Expr, Model, Truth};

    fn holds(m: &Model, e: &Expr, t: &[usize]) -> bool {
        let full: Vec<Option<usize>> = t.iter().map(|&v| Some(v)).collect();
        match e.eval(m, &full) {
            Truth::True => true,
            Truth::False => false,
            Truth::Unknown => panic!("undecided on a full test"),
        }
    }

    fn is_valid(m: &Model, t: &[usize]) -> bool {
        m.exclusions.iter().all(|x| holds(m, x, t)) && m.errors.iter().all(|e| holds(m, &e.expr, t))
    }

    /// What the model says the correct service answers.
    fn expected(m: &Model, t: &[usize]) -> Response {
        match m.errors.iter().position(|e| !holds(m, &e.expr, t)) {
            None => Response::Success,
            Some(k) => Response::Error(CODES[k]),
        }
    }

    fn app(t: &[usize]) -> Application {
        decode(t).expect("well-formed test")
    }

    fn detects(f: Version, t: &[usize]) -> bool {
        respond(f, t) != respond(Version::Correct, t)
    }

    fn of_class(c: FaultClass) -> Vec<Version> {
        FAULTS.iter().copied().filter(|f| f.class() == Some(c)).collect()
    }

    /// Every assignment of `params` (value indices), over `sizes`.
    fn assignments(sizes: &[usize], params: &[usize]) -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        for &p in params {
            out = out.into_iter().flat_map(|a| (0..sizes[p]).map(move |v| [a.clone(), vec![v]].concat())).collect();
        }
        out
    }

    #[test]
    fn schema_matches_model() {
        let m = model();
        assert_eq!(m.params.len(), SCHEMA.len());
        for (p, (name, values)) in m.params.iter().zip(SCHEMA.iter()) {
            assert_eq!(p.name, *name);
            assert_eq!(p.values, values.iter().map(|v| v.to_string()).collect::<Vec<_>>(), "{name}");
        }
        for (k, e) in m.errors.iter().enumerate() {
            assert_eq!(e.name[..3].to_uppercase(), CODES[k]);
        }
    }

    #[test]
    fn correct_version_agrees_with_the_model() {
        let m = model();
        let mut rng = XorShift::new(1);
        let mut tests: Vec<Vec<usize>> = (0..50_000).map(|_| uniform(&m, &mut rng)).collect();
        let valid = Search::valid(&m);
        tests.extend((0..2_000).map(|_| valid.random(&mut rng).unwrap()));
        for k in 0..m.errors.len() {
            let s = Search::strong_invalid(&m, k);
            tests.extend((0..100).map(|_| s.random(&mut rng).unwrap()));
        }
        let mut codes_seen = [false; RULES];
        let mut successes = 0;
        for t in &tests {
            let a = app(t);
            // Rule by rule, not only the first violation.
            for (r, e) in m.errors.iter().enumerate() {
                assert_eq!(rule_holds(Version::Correct, r, &a), holds(&m, &e.expr, t), "rule {} on {t:?}", CODES[r]);
            }
            let got = respond(Version::Correct, t);
            assert_eq!(got, expected(&m, t), "{t:?}");
            match got {
                Response::Success => successes += 1,
                Response::Error(c) => codes_seen[CODES.iter().position(|x| *x == c).unwrap()] = true,
            }
        }
        assert!(successes >= 2_000);
        assert!(codes_seen.iter().all(|&s| s), "every error code occurs");
    }

    #[test]
    fn malformed_input_is_answered_with_e00() {
        let m = model();
        let good = Search::valid(&m).first().unwrap();
        let mut long = good.clone();
        long.push(0);
        let mut out_of_range = good.clone();
        out_of_range[0] = 9;
        let mut huge = good.clone();
        huge[31] = usize::MAX;
        assert_eq!(respond(Version::Correct, &good), Response::Success);
        for v in std::iter::once(Version::Correct).chain(FAULTS) {
            for bad in [&[][..], &good[..31], &long, &out_of_range, &huge] {
                assert_eq!(respond(v, bad), Response::Error(MALFORMED), "{} on {bad:?}", v.name());
            }
        }
        assert_eq!(Response::Error(MALFORMED).code(), Some("E00"));
        assert_eq!(Response::Success.code(), None);
    }

    #[test]
    fn versions_are_named_classified_and_documented() {
        let m = model();
        let mut names: Vec<&str> = FAULTS.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 13);
        for (i, f) in FAULTS.iter().enumerate() {
            assert!(f.name().starts_with(&format!("f{:02}-", i + 1)), "{}", f.name());
            let r = f.rule().unwrap();
            assert!(f.description().contains(CODES[r]), "{}: {}", f.name(), f.description());
            assert!(m.errors[r].name.starts_with(&CODES[r].to_lowercase()));
        }
        assert_eq!(of_class(FaultClass::InvalidOnly).len(), 5);
        assert_eq!(of_class(FaultClass::TooStrong).len(), 4);
        assert_eq!(of_class(FaultClass::WrongParameter).len(), 4);
        assert_eq!(Version::Correct.class(), None);
        assert_eq!(Version::Correct.rule(), None);
        assert_eq!(Version::Correct.name(), "correct");
    }

    /// Each faulty version differs from the correct one in its own rule only (same verdict, same
    /// code for every other rule). By construction (`rule_holds` matches on the version inside
    /// that rule's arm only); checked here on random tests.
    #[test]
    fn each_fault_changes_only_its_rule() {
        let m = model();
        let mut rng = XorShift::new(2);
        for _ in 0..20_000 {
            let t = uniform(&m, &mut rng);
            let a = app(&t);
            for f in FAULTS {
                for r in (0..RULES).filter(|&r| Some(r) != f.rule()) {
                    assert_eq!(rule_holds(f, r, &a), rule_holds(Version::Correct, r, &a), "{} rule {}", f.name(), CODES[r]);
                    assert_eq!(rule_code(f, r), rule_code(Version::Correct, r));
                }
            }
        }
    }

    /// The invalid-only faults weaken their rule (or keep it and change its code): wherever the
    /// correct rule holds, the faulty one holds. The rules of these faults read only the
    /// parameters of their error constraint, so enumerating all assignments of those parameters
    /// (here over 50 random backgrounds for the rest) is exhaustive. With
    /// `each_fault_changes_only_its_rule`, this proves that on every valid application (all 31
    /// correct rules hold) every faulty rule holds too: the answer is `Success` in both versions,
    /// so no valid test can detect these faults.
    ///
    /// The too-strong faults are the converse: wherever the faulty rule holds the correct one
    /// does, so they never accept an application the correct version rejects; and some
    /// assignment holds for the correct rule and not the faulty one (a valid application
    /// rejected, shown by `too_strong_faults_are_detected_by_a_valid_test`).
    #[test]
    fn invalid_only_faults_weaken_and_too_strong_faults_strengthen_their_rule() {
        let m = model();
        let sizes = m.sizes();
        let mut rng = XorShift::new(3);
        let backgrounds: Vec<Vec<usize>> = (0..50).map(|_| uniform(&m, &mut rng)).collect();
        for f in FAULTS {
            let class = f.class().unwrap();
            if class == FaultClass::WrongParameter {
                continue;
            }
            let r = f.rule().unwrap();
            let params = m.errors[r].expr.params();
            let (mut weaker_somewhere, mut stronger_somewhere) = (false, false);
            for bg in &backgrounds {
                for vals in assignments(&sizes, &params) {
                    let mut t = bg.clone();
                    for (&p, &v) in params.iter().zip(&vals) {
                        t[p] = v;
                    }
                    let a = app(&t);
                    let (c, x) = (rule_holds(Version::Correct, r, &a), rule_holds(f, r, &a));
                    weaker_somewhere |= x && !c;
                    stronger_somewhere |= c && !x;
                }
            }
            match class {
                FaultClass::InvalidOnly => {
                    assert!(!stronger_somewhere, "{} rejects something the correct rule accepts", f.name());
                    // F02 keeps the condition and changes the code; the others accept more.
                    assert_eq!(weaker_somewhere, f != Version::F02, "{}", f.name());
                    assert_eq!(rule_code(f, r) != rule_code(Version::Correct, r), f == Version::F02);
                }
                FaultClass::TooStrong => {
                    assert!(!weaker_somewhere, "{} accepts something the correct rule rejects", f.name());
                    assert!(stronger_somewhere, "{}", f.name());
                }
                FaultClass::WrongParameter => unreachable!(),
            }
        }
    }

    /// 100,000 random valid tests (seeded random-order backtracking over the model): none detects
    /// an invalid-only fault; the too-strong and wrong-parameter faults are all detected.
    #[test]
    fn invalid_only_faults_are_not_detected_by_random_valid_tests() {
        let m = model();
        let search = Search::valid(&m);
        let mut rng = XorShift::new(4);
        let mut detected = [0usize; 13];
        for _ in 0..100_000 {
            let t = search.random(&mut rng).unwrap();
            debug_assert!(is_valid(&m, &t));
            assert_eq!(respond(Version::Correct, &t), Response::Success, "{t:?}");
            for (i, f) in FAULTS.iter().enumerate() {
                if detects(*f, &t) {
                    detected[i] += 1;
                }
            }
        }
        for (i, f) in FAULTS.iter().enumerate() {
            match f.class().unwrap() {
                FaultClass::InvalidOnly => assert_eq!(detected[i], 0, "{}", f.name()),
                _ => assert!(detected[i] > 0, "{}", f.name()),
            }
        }
    }

    #[test]
    fn sampled_valid_tests_are_valid() {
        let m = model();
        let search = Search::valid(&m);
        let mut rng = XorShift::new(5);
        for _ in 0..2_000 {
            assert!(is_valid(&m, &search.random(&mut rng).unwrap()));
        }
    }

    /// A strong invalid test for the fault's rule: the correct version reports that rule's
    /// code, the faulty one does not.
    fn detecting_strong_invalid(m: &Model, f: Version, rng: &mut XorShift, pred: impl Fn(Response) -> bool) -> Option<Vec<usize>> {
        let r = f.rule().unwrap();
        Search::strong_invalid(m, r).random_until(rng, 2_000, |t| {
            assert_eq!(respond(Version::Correct, t), Response::Error(CODES[r]));
            detects(f, t) && pred(respond(f, t))
        })
    }

    fn detecting_valid(m: &Model, f: Version, rng: &mut XorShift) -> Option<Vec<usize>> {
        Search::valid(m).random_until(rng, 2_000, |t| detects(f, t))
    }

    #[test]
    fn invalid_only_faults_are_detected_by_a_strong_invalid_test() {
        let m = model();
        let mut rng = XorShift::new(6);
        for f in of_class(FaultClass::InvalidOnly) {
            let t = detecting_strong_invalid(&m, f, &mut rng, |_| true).unwrap_or_else(|| panic!("{} undetected", f.name()));
            let want = if f == Version::F02 { Response::Error("E10") } else { Response::Success };
            assert_eq!(respond(f, &t), want, "{}", f.name());
        }
    }

    #[test]
    fn too_strong_faults_are_detected_by_a_valid_test() {
        let m = model();
        let mut rng = XorShift::new(7);
        for f in of_class(FaultClass::TooStrong) {
            let t = detecting_valid(&m, f, &mut rng).unwrap_or_else(|| panic!("{} undetected", f.name()));
            assert_eq!(respond(f, &t), Response::Error(CODES[f.rule().unwrap()]), "{}", f.name());
            // Too strong only: no strong invalid test of the rule is accepted.
            let r = f.rule().unwrap();
            let s = Search::strong_invalid(&m, r);
            for _ in 0..200 {
                assert_ne!(respond(f, &s.random(&mut rng).unwrap()), Response::Success, "{}", f.name());
            }
        }
    }

    #[test]
    fn wrong_parameter_faults_are_too_weak_and_too_strong() {
        let m = model();
        let mut rng = XorShift::new(8);
        for f in of_class(FaultClass::WrongParameter) {
            let code = CODES[f.rule().unwrap()];
            let t = detecting_valid(&m, f, &mut rng).unwrap_or_else(|| panic!("{}: no valid test rejected", f.name()));
            assert_eq!(respond(f, &t), Response::Error(code), "{}", f.name());
            let t = detecting_strong_invalid(&m, f, &mut rng, |r| r == Response::Success)
                .unwrap_or_else(|| panic!("{}: no strong invalid test accepted", f.name()));
            assert_eq!(respond(f, &t), Response::Success, "{}", f.name());
        }
    }

    #[test]
    fn every_fault_is_detected_and_evaluate_counts_failing_tests() {
        let m = model();
        let mut rng = XorShift::new(9);
        let mut suite = Vec::new();
        for f in FAULTS {
            let t = match f.class().unwrap() {
                FaultClass::InvalidOnly => detecting_strong_invalid(&m, f, &mut rng, |_| true),
                _ => detecting_valid(&m, f, &mut rng),
            };
            suite.push(t.unwrap_or_else(|| panic!("{} undetected", f.name())));
        }
        for (i, f) in FAULTS.iter().enumerate() {
            let (detected, failing) = evaluate(*f, &suite);
            assert!(detected, "{}", f.name());
            assert!(detects(*f, &suite[i]));
            assert_eq!(failing, suite.iter().filter(|t| detects(*f, t)).count());
            assert_eq!(evaluate(*f, &[]), (false, 0));
        }
        assert_eq!(evaluate(Version::Correct, &suite), (false, 0));
        // A malformed test is answered alike by every version: never a failing test.
        assert_eq!(evaluate(Version::F01, &[vec![0; 3]]), (false, 0));
    }

    /// The first-violation stop masks: an application violating E01 and E02 shows only E01, so
    /// it cannot reveal the missing E02 check of F01, while the strong invalid test for E02 does.
    #[test]
    fn a_second_violation_is_masked_by_the_first() {
        let m = model();
        let strong = Search::strong_invalid(&m, 1).first().unwrap();
        assert_eq!(respond(Version::Correct, &strong), Response::Error("E02"));
        assert!(detects(Version::F01, &strong));
        let mut double = strong.clone();
        double[m.param("applicant_age").unwrap()] = 0; // "17"
        assert_eq!(respond(Version::Correct, &double), Response::Error("E01"));
        assert_eq!(respond(Version::F01, &double), Response::Error("E01"));
        assert!(!detects(Version::F01, &double));
    }
}
