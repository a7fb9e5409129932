//! The input parameter model of the insurance-application service, written as data: 32
//! parameters (domain sizes 9^1 6^2 5^1 4^8 3^8 2^12, 106 values), 3 exclusion constraints on two
//! parameters each and 31 error constraints `e01`..`e31` (15 on one parameter value, 8 on two
//! parameters, 6 on three, 2 on five).
//!
//! This is one of two independent descriptions of the validation: the service ([`crate::respond`])
//! implements the same 31 rules as plain Rust code and never evaluates these expressions; tests
//! check that the two agree.

use rigor_ct::{CmpOp, ErrorConstraint, Expr, Model, Operand, Param};

/// Parameters in order: (name, values). Yes/no parameters are always `["no", "yes"]`.
const PARAMS: [(&str, &[&str]); 32] = [
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

/// Parameter index by name; the names used below are all in [`PARAMS`] (a test builds the model).
fn ix(name: &str) -> usize {
    PARAMS.iter().position(|(n, _)| *n == name).unwrap_or_else(|| panic!("no parameter {name:?}"))
}

fn cmp(name: &str, op: CmpOp, value: &str) -> Expr {
    Expr::Cmp(Operand::Param(ix(name)), op, Operand::Const(value.into()))
}
fn eq(name: &str, value: &str) -> Expr {
    cmp(name, CmpOp::Eq, value)
}
fn ne(name: &str, value: &str) -> Expr {
    cmp(name, CmpOp::Ne, value)
}
fn le(name: &str, value: &str) -> Expr {
    cmp(name, CmpOp::Le, value)
}
fn ge(name: &str, value: &str) -> Expr {
    cmp(name, CmpOp::Ge, value)
}
fn one_of(name: &str, values: &[&str]) -> Expr {
    Expr::In(ix(name), values.iter().map(|v| v.to_string()).collect())
}
fn and(es: Vec<Expr>) -> Expr {
    Expr::And(es)
}
fn or(es: Vec<Expr>) -> Expr {
    Expr::Or(es)
}
fn implies(a: Expr, b: Expr) -> Expr {
    Expr::Implies(Box::new(a), Box::new(b))
}

/// The three exclusion constraints (irrelevant combinations; every test satisfies them).
fn exclusions() -> Vec<Expr> {
    vec![
        // x1: only vehicle products insure a vehicle.
        implies(one_of("product", &["home", "travel", "life", "health"]), eq("vehicle_type", "none")),
        // x2: the building is asked for home insurance only.
        implies(ne("product", "home"), eq("building_type", "none")),
        // x3: winter sports cover exists for travel insurance only.
        implies(ne("product", "travel"), eq("winter_sports", "no")),
    ]
}

/// The 31 error constraints, in the order the service checks its rules. Each states what a VALID
/// application satisfies.
fn errors() -> Vec<(&'static str, Expr)> {
    vec![
        // One parameter value each.
        ("e01_min_age", ge("applicant_age", "18")),
        ("e02_country_supported", ne("country", "XX")),
        ("e03_no_weekly_payment", ne("payment_frequency", "weekly")),
        ("e04_email_format", ne("email", "malformed")),
        ("e05_phone_format", ne("phone", "malformed")),
        ("e06_start_not_in_past", ne("start_date", "past")),
        ("e07_terms_accepted", eq("terms_accepted", "yes")),
        ("e08_data_consent", eq("data_consent", "yes")),
        ("e09_max_claims", le("claims_5y", "3")),
        ("e10_max_sum_insured", le("sum_insured", "1000000")),
        ("e11_max_deductible", le("deductible", "1000")),
        ("e12_occupation_given", ne("occupation", "unspecified")),
        ("e13_no_trucks", ne("vehicle_type", "truck")),
        ("e14_private_use_only", eq("commercial_use", "no")),
        ("e15_max_age", le("applicant_age", "90")),
        // Two parameters each.
        ("e16_vehicle_required", implies(one_of("product", &["car", "motorcycle"]), ne("vehicle_type", "none"))),
        (
            "e17_motorcycle_product",
            and(vec![
                implies(eq("vehicle_type", "motorcycle"), eq("product", "motorcycle")),
                implies(eq("product", "motorcycle"), eq("vehicle_type", "motorcycle")),
            ]),
        ),
        (
            "e18_licence_plausible",
            and(vec![
                implies(le("driver_age", "18"), le("licence_years", "1")),
                implies(le("driver_age", "25"), le("licence_years", "5")),
            ]),
        ),
        ("e19_sepa_needs_iban", implies(eq("payment_method", "sepa"), eq("iban_valid", "yes"))),
        ("e20_online_needs_email", implies(eq("channel", "online"), eq("email", "valid"))),
        ("e21_home_needs_building", implies(eq("product", "home"), ne("building_type", "none"))),
        ("e22_invoice_existing_customers", implies(eq("payment_method", "invoice"), eq("existing_customer", "yes"))),
        ("e23_monthly_needs_sepa", implies(eq("payment_frequency", "monthly"), eq("payment_method", "sepa"))),
        // Three parameters each.
        (
            "e24_life_sum_age_limit",
            implies(and(vec![eq("product", "life"), ge("sum_insured", "1000000")]), le("applicant_age", "45")),
        ),
        (
            "e25_senior_health",
            implies(and(vec![one_of("product", &["life", "health"]), ge("applicant_age", "70")]), eq("health_status", "good")),
        ),
        (
            "e26_accompanied_driving",
            implies(and(vec![le("driver_age", "17"), eq("vehicle_type", "car")]), eq("second_driver", "yes")),
        ),
        ("e27_contact_reachable", implies(ne("channel", "agent"), or(vec![eq("email", "valid"), eq("phone", "valid")]))),
        (
            "e28_novice_deductible",
            implies(and(vec![ne("vehicle_type", "none"), eq("licence_years", "0")]), ge("deductible", "500")),
        ),
        (
            "e29_high_value_home_alarm",
            implies(and(vec![eq("building_type", "house"), ge("sum_insured", "1000000")]), eq("alarm_system", "yes")),
        ),
        // Five parameters each.
        (
            "e30_young_driver_claims",
            implies(
                and(vec![ne("vehicle_type", "none"), le("driver_age", "25"), ge("claims_5y", "1")]),
                or(vec![ge("deductible", "500"), eq("garage", "yes")]),
            ),
        ),
        (
            "e31_life_smoker_health",
            implies(
                and(vec![eq("product", "life"), eq("smoker", "yes"), ge("applicant_age", "45"), ge("sum_insured", "100000")]),
                eq("health_status", "good"),
            ),
        ),
    ]
}

/// The input parameter model of the insurance-application service.
///
/// `Param::invalid` stays empty: every invalid value is stated once, as an error constraint.
pub fn model() -> Model {
    Model {
        name: "insurance".into(),
        params: PARAMS
            .iter()
            .map(|(name, values)| Param { name: (*name).into(), values: values.iter().map(|v| v.to_string()).collect(), invalid: vec![] })
            .collect(),
        exclusions: exclusions(),
        errors: errors().into_iter().map(|(name, expr)| ErrorConstraint { name: name.into(), expr }).collect(),
        seeds: vec![],
        submodels: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Search, XorShift};
    use rigor_ct::Truth;

    fn full(t: &[usize]) -> Vec<Option<usize>> {
        t.iter().map(|&v| Some(v)).collect()
    }

    #[test]
    fn profile_matches_the_case_study() {
        let m = model();
        m.check().unwrap();
        assert_eq!(m.params.len(), 32);
        let mut sizes = m.sizes();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let mut want = vec![9, 6, 6, 5];
        want.extend([4; 8]);
        want.extend([3; 8]);
        want.extend([2; 12]);
        assert_eq!(sizes, want, "9^1 6^2 5^1 4^8 3^8 2^12");
        assert_eq!(sizes.iter().sum::<usize>(), 106);

        assert_eq!(m.exclusions.len(), 3);
        for x in &m.exclusions {
            assert_eq!(x.params().len(), 2, "{}", x.display(&m));
        }

        assert_eq!(m.errors.len(), 31);
        let mut arity = [0usize; 6];
        for (i, e) in m.errors.iter().enumerate() {
            assert!(e.name.starts_with(&format!("e{:02}_", i + 1)), "{}", e.name);
            arity[e.expr.params().len()] += 1;
        }
        assert_eq!(arity, [0, 15, 8, 6, 0, 2], "15 on one parameter, 8 on two, 6 on three, 2 on five");
    }

    #[test]
    fn single_parameter_errors_rule_out_exactly_one_value() {
        let m = model();
        for e in m.errors.iter().filter(|e| e.expr.params().len() == 1) {
            let p = e.expr.params()[0];
            let mut test = vec![None; m.params.len()];
            let mut bad = 0;
            for v in 0..m.params[p].values.len() {
                test[p] = Some(v);
                match e.expr.eval(&m, &test) {
                    Truth::False => bad += 1,
                    Truth::True => {}
                    Truth::Unknown => panic!("{} undecided on its own parameter", e.name),
                }
            }
            assert_eq!(bad, 1, "{}", e.name);
        }
    }

    #[test]
    fn valid_tests_exist() {
        let m = model();
        let t = Search::valid(&m).first().expect("some test satisfies all exclusions and error constraints");
        let t = full(&t);
        assert!(m.exclusions.iter().all(|x| x.eval(&m, &t) == Truth::True));
        assert!(m.errors.iter().all(|e| e.expr.eval(&m, &t) == Truth::True));
    }

    #[test]
    fn every_error_constraint_has_a_strong_invalid_test() {
        let m = model();
        for (k, e) in m.errors.iter().enumerate() {
            let t = Search::strong_invalid(&m, k).first().unwrap_or_else(|| panic!("no strong invalid test for {}", e.name));
            let t = full(&t);
            assert!(m.exclusions.iter().all(|x| x.eval(&m, &t) == Truth::True), "{}", e.name);
            for (j, f) in m.errors.iter().enumerate() {
                let want = if j == k { Truth::False } else { Truth::True };
                assert_eq!(f.expr.eval(&m, &t), want, "{} on the strong invalid test of {}", f.name, e.name);
            }
        }
    }

    #[test]
    fn random_searches_reach_every_value_of_every_parameter_in_valid_tests_unless_invalid() {
        // Sanity of the sampler used by the fault tests: over many random valid tests every value
        // that some valid test can take shows up, and no value ruled out by a single-parameter
        // error constraint does.
        let m = model();
        let mut rng = XorShift::new(7);
        let mut seen: Vec<Vec<bool>> = m.params.iter().map(|p| vec![false; p.values.len()]).collect();
        let search = Search::valid(&m);
        for _ in 0..3000 {
            let t = search.random(&mut rng).unwrap();
            for (p, &v) in t.iter().enumerate() {
                seen[p][v] = true;
            }
        }
        for (p, param) in m.params.iter().enumerate() {
            for (v, value) in param.values.iter().enumerate() {
                let mut probe = vec![None; m.params.len()];
                probe[p] = Some(v);
                let ruled_out = m.errors.iter().any(|e| e.expr.params() == [p] && e.expr.eval(&m, &probe) == Truth::False);
                assert_eq!(seen[p][v], !ruled_out, "{} = {value}", param.name);
            }
        }
    }
}
