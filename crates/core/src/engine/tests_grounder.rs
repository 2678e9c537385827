//! Runs with a grounding model beside the planner (`grounded.rs`, docs/grounding.md).

use super::*;
use crate::grounder::Grounder;

/// A GTA1 grounder (pixels of its own smart_resize of the 320x200 screen: 308x196) that
/// answers `answers`.
fn gta1(answers: impl IntoIterator<Item = Canned>) -> (Grounder, Arc<CannedModel>) {
    let model = Arc::new(CannedModel::new(answers));
    let profile = crate::profile::by_name("gta1").unwrap();
    let observe = ObserveConfig {
        cursor: false,
        ..ObserveConfig::default()
    };
    let g = Grounder::new(model.clone(), "GTA1-7B", profile, &observe, 0, 100);
    (g, model)
}

/// Runs `run` with a GTA1 grounder answering (77,49), which is (80, 50) of the fake 320x200
/// screen exactly in GTA1's space (77 * 320 / 308 = 80, 49 * 200 / 196 = 50); checks that the
/// run is done and the pointer went there.
fn done_at_the_grounders_point(mut run: Run) -> (Ran, Arc<CannedModel>) {
    let (g, grounder_model) = gta1([Canned::text("(77,49)")]);
    run.grounder = Some(g);
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{:?}", ran.names());
    let sent = ran.desktop.sent();
    assert!(
        sent.contains(&Sent::Move(PixelPoint::new(80, 50))),
        "{sent:?}"
    );
    (ran, grounder_model)
}

fn text_of(r: &crate::model::ChatRequest) -> String {
    serde_json::to_string(&r.to_body()).unwrap()
}

#[test]
fn a_target_in_words_is_clicked_where_the_grounder_points() {
    let run = Run::texts(
        "narrative",
        &[
            "click(target=\"the OK button\")\nclick OK",
            "done(\"ok\")\nok",
        ],
    );
    let planner = run.model.clone();
    let (ran, grounder_model) = done_at_the_grounders_point(run);
    assert_eq!(ran.clicks(), 1);
    let grounded = ran.events.iter().find_map(|e| match &e.kind {
        EventKind::Grounded {
            target,
            model,
            point,
            of,
            screen,
            ..
        } => Some((target.clone(), model.clone(), *point, *of, *screen)),
        _ => None,
    });
    assert_eq!(
        grounded,
        Some((
            "the OK button".to_string(),
            "GTA1-7B".to_string(),
            [77.0, 49.0],
            [308.0, 196.0],
            [80, 50]
        ))
    );
    // the planner was told of the words form (and only with a grounder: see below)
    let first = text_of(&planner.requests()[0]);
    assert!(first.contains("TARGETS IN WORDS"), "{first}");
    // the grounder was asked in GTA1's own prompt, for the planner's words
    let asked = text_of(&grounder_model.requests()[0]);
    assert!(asked.contains("height 196 and width 308"), "{asked}");
    assert!(asked.contains("the OK button"), "{asked}");
}

#[test]
fn a_grounder_answering_garbage_performs_nothing_and_tells_the_planner() {
    for garbage in ["I cannot find it.", "(x,y)", ""] {
        let mut run = Run::texts(
            "narrative",
            &[
                "click(target=\"the OK button\")\nclick OK",
                "done(\"ok\")\nok",
            ],
        );
        let planner = run.model.clone();
        let (g, _) = gta1([Canned::text(garbage)]);
        run.grounder = Some(g);
        let ran = run.go();
        assert_eq!(ran.clicks(), 0, "{garbage:?}");
        assert_eq!(ran.count("grounded"), 0);
        let said = ran.events.iter().any(|e| {
            matches!(&e.kind, EventKind::Error { message, fatal: false }
                if message.contains("grounding") && message.contains("the OK button"))
        });
        assert!(said, "{garbage:?}: {:?}", ran.names());
        let second = text_of(&planner.requests()[1]);
        assert!(second.contains("gave no point"), "{second}");
    }
}

#[test]
fn without_a_grounder_a_target_is_never_clicked_at_the_pointer() {
    let run = Run::texts(
        "narrative",
        &[
            "click(target=\"the OK button\")\nclick OK",
            "done(\"ok\")\nok",
        ],
    );
    let planner = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.clicks(), 0);
    let first = text_of(&planner.requests()[0]);
    assert!(!first.contains("TARGETS IN WORDS"), "{first}");
    let second = text_of(&planner.requests()[1]);
    assert!(
        second.contains("no grounding model is configured"),
        "{second}"
    );
}

#[test]
fn a_stop_while_the_grounder_is_asked_ends_the_run_at_once() {
    let mut run = Run::texts("narrative", &["click(target=\"the OK button\")\nclick OK"]);
    let (g, grounder_model) = gta1([Canned::Hang]);
    run.grounder = Some(g);
    let cancel = run.cancel.clone();
    let stopper = std::thread::spawn(move || {
        assert!(grounder_model.wait_requests(1, Duration::from_secs(20)));
        cancel.cancel();
    });
    let ran = run.go();
    stopper.join().unwrap();
    assert_eq!(ran.summary.outcome, Outcome::Interrupted);
    assert_eq!(ran.clicks(), 0);
}

#[test]
fn with_zoom_refinement_the_grounder_is_asked_again_on_a_crop_and_its_point_acted_at() {
    let mut run = Run::texts(
        "narrative",
        &[
            "click(target=\"the OK button\")\nclick OK",
            "done(\"ok\")\nok",
        ],
    );
    run.options.refine.mode = crate::refine::Refine::Zoom;
    run.options.refine.crop = crate::refine::DEFAULT_CROP;
    let planner = run.model.clone();
    // first on the whole screen (80, 50), then the crop's top-left pixel
    let (g, grounder_model) = gta1([Canned::text("(77,49)"), Canned::text("(0,0)")]);
    run.grounder = Some(g);
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{:?}", ran.names());
    // a third of 320x200 around (80, 50): 107x67 from (27, 17)
    let sent = ran.desktop.sent();
    assert!(
        sent.contains(&Sent::Move(PixelPoint::new(27, 17))),
        "{sent:?}"
    );
    let refined = ran.events.iter().find_map(|e| match &e.kind {
        EventKind::Refined {
            from, to, error, ..
        } => Some((*from, *to, error.clone())),
        _ => None,
    });
    assert_eq!(refined, Some(([80, 50], [27, 17], None)));
    // the grounder was asked twice, in its own prompt for the planner's words; the planner
    // only for its turns
    let asked = grounder_model.requests();
    assert_eq!(asked.len(), 2);
    assert!(text_of(&asked[1]).contains("the OK button"));
    assert_eq!(planner.requests().len(), 2);
}

#[test]
fn the_tools_strategy_declares_a_target_argument_and_its_call_is_grounded() {
    let replies = vec![
        tool_reply(
            "",
            &[(
                "click_element",
                json!({"label": "OK", "target": "the OK button"}),
            )],
        ),
        tool_reply("Clicked OK.", &[]),
    ];
    let run = Run::new("tools", replies);
    let planner = run.model.clone();
    let _ = done_at_the_grounders_point(run);
    // the click tools offer the argument only with a grounder (the test above without one)
    let tools = serde_json::to_value(&planner.requests()[0].tools).unwrap();
    let click = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["function"]["name"] == "click_element"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        click["function"]["parameters"]["properties"]["target"]["type"], "string",
        "{click}"
    );
    let plain = Run::new("tools", vec![tool_reply("done", &[])]);
    let asked = plain.model.clone();
    plain.go();
    let tools = serde_json::to_string(&asked.requests()[0].tools).unwrap();
    assert!(!tools.contains("\"target\""), "{tools}");
}
