//! What a setting's value must be beyond its kind, checked when the configuration is resolved
//! (`Setting::check`): every command that resolves the configuration refuses a bad value with
//! the same message, `franz config` as `franz run`, before anything starts.

/// `mask_regions`: boxes `x1,y1,x2,y2` in 0..1000 of the screen, separated by `;`.
pub(super) fn mask(v: &str) -> Result<(), String> {
    crate::observe::mask::parse(v).map(|_| ()).map_err(|e| {
        format!("{e}: give boxes x1,y1,x2,y2 in 0..1000 of the screen, separated by ;")
    })
}

/// `refine_crop`: a fraction of the screen's side (`crate::refine::parse_crop`).
pub(super) fn refine_crop(v: &str) -> Result<(), String> {
    crate::refine::parse_crop(v).map(|_| ())
}

/// `api_url`: a URL franz can send requests to.
pub(super) fn url(v: &str) -> Result<(), String> {
    crate::model::Endpoint::parse(v)
        .map(|_| ())
        .map_err(|e| match e {
            crate::model::ModelError::BadUrl { reason, .. } => {
                format!("{reason}: give a URL like http://localhost:1234/v1")
            }
            other => other.to_string(),
        })
}

/// `grounder_api_url`: empty (the planner's server) or a URL as [`url`] takes.
pub(super) fn optional_url(v: &str) -> Result<(), String> {
    if v.trim().is_empty() {
        return Ok(());
    }
    url(v)
}

/// `api_key`: sent as an HTTP header, so one line of visible characters.
pub(super) fn header(v: &str) -> Result<(), String> {
    match crate::model::client::header_problem(v) {
        None => Ok(()),
        Some(p) => Err(format!(
            "{p}: an HTTP header cannot carry it, so no request could be sent; a key is one line of visible characters: copy it again without it"
        )),
    }
}

/// `profile`: `auto`, a built-in profile's name or a profile file that reads.
pub(super) fn profile(v: &str) -> Result<(), String> {
    crate::profile::select(v, &crate::profile::ModelIds::default())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_refuses_what_a_run_would_refuse() {
        assert!(mask("0,0,500,500;600,600,700,700").is_ok());
        assert!(mask("0,0,2000,2000").unwrap_err().contains("0..1000"));
        assert!(refine_crop("1/3").is_ok());
        assert!(refine_crop("3").unwrap_err().contains("from 0.05 to 1"));
        assert!(url("http://localhost:1234/v1").is_ok());
        assert!(url("localhost 1234").is_err());
        assert!(optional_url("").is_ok());
        assert!(optional_url("localhost 1234").is_err());
        assert!(header("sk-abc").is_ok());
        let e = header("sk-abc\ndef").unwrap_err();
        assert!(e.contains("line break (character 7"), "{e}");
        assert!(!e.contains("sk-abc"), "the key stays secret: {e}");
        assert!(profile("auto").is_ok());
        assert!(
            profile("no-such-profile")
                .unwrap_err()
                .contains("unknown profile")
        );
    }
}
