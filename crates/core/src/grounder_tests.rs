use super::*;
use crate::geometry::WorkArea;
use crate::model::CannedModel;
use franz_desktop::PixelRect;

fn grounder(profile: &str) -> Grounder {
    let profile = crate::profile::by_name(profile).unwrap();
    Grounder::new(
        Arc::new(CannedModel::texts(["(1,1)"])),
        format!("{}-7b", profile.name),
        profile,
        &ObserveConfig::default(),
        0,
        2048,
    )
}

fn area() -> WorkArea {
    WorkArea {
        rect: PixelRect::new(0, 0, 1920, 1080),
    }
}

#[test]
fn each_family_answer_is_read_in_its_own_space_and_mapped_exactly() {
    let size = ImageSize::new(1932, 1092);
    // GTA1: pixels of the image it was sent
    let (e, p) = grounder("gta1")
        .read(&Reply::text("(966,546)"), "OK", size, &area())
        .unwrap();
    assert_eq!(e.of, [Num(1932.0), Num(1092.0)]);
    assert_eq!((p.x, p.y), (960, 540));
    // UGround: 0..1000
    let (_, p) = grounder("uground")
        .read(&Reply::text("(250, 500)"), "OK", size, &area())
        .unwrap();
    assert_eq!((p.x, p.y), (480, 540));
    // ShowUI: fractions
    let (_, p) = grounder("showui")
        .read(&Reply::text("[0.25, 0.5]"), "OK", size, &area())
        .unwrap();
    assert_eq!((p.x, p.y), (480, 540));
    // OS-Atlas: a 0..1000 box, clicked at its centre
    let atlas =
        "<|object_ref_start|>OK<|object_ref_end|><|box_start|>(200,400),(300,600)<|box_end|>";
    let (_, p) = grounder("os-atlas")
        .read(&Reply::text(atlas), "OK", size, &area())
        .unwrap();
    assert_eq!((p.x, p.y), (480, 540));
}

#[test]
fn garbage_an_echo_or_nothing_is_no_point() {
    let g = grounder("gta1");
    let size = ImageSize::new(1932, 1092);
    for answer in ["I cannot see it.", "(x,y)", "", "{\"coordinates\": [5, 5]}"] {
        let e = g
            .read(&Reply::text(answer), "the Save button", size, &area())
            .unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, GroundError::NoPoint { .. }), "{answer}: {text}");
        assert!(text.contains("the Save button"), "{text}");
        assert!(text.contains("gta1-7b"), "{text}");
    }
}

#[test]
fn the_request_is_the_familys_own_prompt_with_the_image() {
    let g = grounder("gta1");
    let mut pipeline = Pipeline::new(ObserveConfig::default());
    let mut desktop = franz_desktop::fake::FakeDesktop::new(1920, 1080);
    let shot = pipeline.observe(&mut desktop, |_| {}).unwrap();
    let r = g.request("the Save button", &shot);
    let Content::Text(system) = &r.messages[0].content else {
        panic!("a system text");
    };
    assert!(system.contains(&format!(
        "height {} and width {}",
        shot.size.height, shot.size.width
    )));
    let Content::Parts(parts) = &r.messages[1].content else {
        panic!("parts");
    };
    assert!(matches!(parts[0], ContentPart::ImageUrl { .. }));
    assert_eq!(
        parts[1],
        ContentPart::Text {
            text: "the Save button".into()
        }
    );
    assert_eq!(r.temperature, Some(0.0));
    // a profile without its family's prompt: franz's, in its space
    let q = grounder("gui-owl-1.5").prompt();
    assert!(q.user.contains("0..1000"), "{}", q.user);
    assert!(q.user.contains("{target}"));
}

/// A screenshot of a 1920x1080 fake screen at the profile's own size.
fn shot(profile: &str) -> Screenshot {
    let profile = crate::profile::by_name(profile).unwrap();
    let config = ObserveConfig {
        size: profile.size_rule(0),
        ..ObserveConfig::default()
    };
    let mut desktop = franz_desktop::fake::FakeDesktop::new(1920, 1080);
    Pipeline::new(config).observe(&mut desktop, |_| {}).unwrap()
}

/// A crop at (100, 50), 1600x900: neither the screen's nor any image's size.
fn crop() -> WorkArea {
    WorkArea {
        rect: PixelRect::new(100, 50, 1600, 900),
    }
}

/// The request's texts, each as sent, and where its image is among the user's parts.
fn texts(r: &ChatRequest) -> (Option<String>, Vec<String>, usize) {
    let system = match &r.messages[0].content {
        Content::Text(t) if r.messages.len() == 2 => Some(t.clone()),
        _ => None,
    };
    let Content::Parts(parts) = &r.messages[r.messages.len() - 1].content else {
        panic!("parts");
    };
    let image = parts
        .iter()
        .position(|p| matches!(p, ContentPart::ImageUrl { .. }))
        .unwrap();
    let user = parts
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    (system, user, image)
}

/// `profile`'s grounder, its screenshot and the user texts of its request for the Save
/// button, a request with no system message and the image before the texts.
fn asked_image_first(profile: &str) -> (Grounder, Screenshot, Vec<String>) {
    let g = grounder(profile);
    let shot = shot(profile);
    let (system, user, image) = texts(&g.request("the Save button", &shot));
    assert_eq!(system, None, "{profile}");
    assert_eq!(image, 0, "{profile}");
    (g, shot, user)
}

/// MAI-UI (Tongyi-MAI/MAI-UI src/prompt.py, MAI_MOBILE_SYS_PROMPT_GROUNDING).
const MAI_UI_SYSTEM: &str = "You are a GUI grounding agent. \n## Task\nGiven a screenshot and the user's grounding instruction. Your task is to accurately locate a UI element based on the user's instructions.\nFirst, you should carefully examine the screenshot and analyze the user's instructions,  translate the user's instruction into a effective reasoning process, and then provide the final coordinate.\n## Output Format\nReturn a json object with a reasoning process in <grounding_think></grounding_think> tags, a [x,y] format coordinate within <answer></answer> XML tags:\n<grounding_think>...</grounding_think>\n<answer>\n{\"coordinate\": [x,y]}\n</answer>";

#[test]
fn mai_ui_is_asked_in_its_own_prompt_and_its_answer_read_in_0_to_999() {
    let g = grounder("mai-ui");
    let shot = shot("mai-ui");
    let r = g.request("the Save button", &shot);
    let (system, user, image) = texts(&r);
    assert_eq!(system.as_deref(), Some(MAI_UI_SYSTEM));
    // src/mai_grounding_agent.py: the instruction and a newline, then the image
    assert_eq!(user, ["the Save button\n"]);
    assert_eq!(image, 1);
    // its answer (src/mai_grounding_agent.py's parse: <answer>'s coordinate / 999)
    let answer = "<grounding_think>The Save button is in the toolbar.</grounding_think>\n<answer>\n{\"coordinate\": [333, 666]}\n</answer>";
    let (e, p) = g
        .read(&Reply::text(answer), "the Save button", shot.size, &crop())
        .unwrap();
    assert_eq!(e.of, [Num(999.0), Num(999.0)]);
    // 100 + round(333 * 1600 / 999), 50 + round(666 * 900 / 999)
    assert_eq!((p.x, p.y), (633, 650));
    // its prompt written back, an empty answer tag, garbage, nothing: no point
    let echo = format!("{MAI_UI_SYSTEM}\nthe Save button\n");
    for answer in [echo.as_str(), "<answer></answer>", "I cannot see it.", ""] {
        let e = g.read(&Reply::text(answer), "the Save button", shot.size, &crop());
        assert!(matches!(e, Err(GroundError::NoPoint { .. })), "{answer}");
    }
}

/// UI-Venus-1.5 (inclusionAI/UI-Venus models/grounding/ui_venus1_5_gd.py, with the refusal).
const UI_VENUS_PROMPT: &str = "Output the center point of the position corresponding to the following instruction: \nthe Save button. \n\nThe output should just be the coordinates of a point, in the format [x,y]. Additionally, if the task is infeasible (e.g., the task is not related to the image), the output should be [-1,-1].";

#[test]
fn ui_venus_is_asked_in_its_own_prompt_and_its_answer_read_in_0_to_1000() {
    // the image, then the prompt
    let (g, shot, user) = asked_image_first("ui-venus-1.5");
    assert_eq!(user, [UI_VENUS_PROMPT]);
    let (e, p) = g
        .read(
            &Reply::text("[250,500]"),
            "the Save button",
            shot.size,
            &crop(),
        )
        .unwrap();
    assert_eq!(e.of, [Num(1000.0), Num(1000.0)]);
    assert_eq!((p.x, p.y), (500, 500));
    // a box ([x1, y1, x2, y2], its parser's other form): its centre
    let (_, p) = g
        .read(
            &Reply::text("[200, 400, 300, 600]"),
            "the Save button",
            shot.size,
            &crop(),
        )
        .unwrap();
    assert_eq!((p.x, p.y), (500, 500));
    // its prompt written back, its refusal [-1,-1], garbage, nothing: no point
    for answer in [UI_VENUS_PROMPT, "[-1,-1]", "[x,y]", "I cannot see it.", ""] {
        let e = g.read(&Reply::text(answer), "the Save button", shot.size, &crop());
        assert!(matches!(e, Err(GroundError::NoPoint { .. })), "{answer}");
    }
}

/// `P0 + min(L - 1, round(v * L / S))` on one axis (docs/coordinates.md, "Exact targets").
fn on_axis(v: f64, s: u32, p0: i32, len: u32) -> i32 {
    p0 + ((v * len as f64 / s as f64).round() as i32).min(len as i32 - 1)
}

/// `answers` each give no point for the Save button on `g`.
fn no_point_in(g: &Grounder, shot: &Screenshot, answers: &[&str]) {
    for answer in answers {
        let e = g.read(&Reply::text(*answer), "the Save button", shot.size, &crop());
        assert!(
            matches!(e, Err(GroundError::NoPoint { .. })),
            "{answer}: {e:?}"
        );
    }
}

/// Qwen3-VL (QwenLM/Qwen3-VL cookbooks/spatial_understanding.ipynb): the image, then its point
/// prompt; `point_2d` in 0..1000 (the notebook's plot_points: x / 1000 * width).
#[test]
fn qwen3_vl_is_asked_in_its_cookbooks_point_prompt_and_read_in_0_to_1000() {
    let (g, shot, user) = asked_image_first("qwen3-vl");
    assert_eq!(
        user,
        ["Locate the Save button in this image. Output the point coordinates in JSON format."]
    );
    // the answer as the notebook prints it
    let answer = "```json\n[\n\t{\"point_2d\": [250, 500], \"label\": \"the Save button\"}\n]\n```";
    let (e, p) = g
        .read(&Reply::text(answer), "the Save button", shot.size, &crop())
        .unwrap();
    assert_eq!(e.of, [Num(1000.0), Num(1000.0)]);
    assert_eq!((p.x, p.y), (500, 500));
    let echo = "Locate the Save button in this image. Output the point coordinates in JSON format.";
    let example = "[{\"point_2d\": [x, y], \"label\": \"...\"}]";
    no_point_in(&g, &shot, &[echo, example, "I cannot see it.", ""]);
}

/// Qwen2.5-VL (QwenLM/Qwen2.5-VL cookbooks/spatial_understanding.ipynb): the image, then its
/// XML point prompt; `x1`, `y1` in pixels of the image sent (plot_points: x / input_width *
/// width).
#[test]
fn qwen2_5_vl_is_asked_in_its_cookbooks_point_prompt_and_read_in_its_images_pixels() {
    let (g, shot, user) = asked_image_first("qwen2.5-vl");
    assert_eq!(
        user,
        [
            "point to the Save button, output its coordinates in XML format <points x y>object</points>"
        ]
    );
    let (w, h) = (shot.size.width, shot.size.height);
    let answer = format!(
        "<points x1=\"{}\" y1=\"{}\" alt=\"the Save button\">the Save button</points>",
        w / 3,
        h * 2 / 3
    );
    let (e, p) = g
        .read(&Reply::text(&answer), "the Save button", shot.size, &crop())
        .unwrap();
    assert_eq!(e.of, [Num(w as f64), Num(h as f64)]);
    let x = on_axis((w / 3) as f64, w, 100, 1600);
    let y = on_axis((h * 2 / 3) as f64, h, 50, 900);
    assert_eq!((p.x, p.y), (x, y));
    let example = "<points x y>object</points>";
    no_point_in(
        &g,
        &shot,
        &[example, "<points x1=\"5\">", "I cannot see it.", ""],
    );
}

/// Holo1.5's localization prompt, as its model card's `get_chat_messages` writes it for the
/// Save button: `ClickAbsoluteAction.model_json_schema()` printed by Python (pydantic 2.14).
const HOLO15_PROMPT: &str = "Localize an element on the GUI image according to the provided target and output a click position.\n * You must output a valid JSON following the format: {'description': 'Data model representing an absolute click action on a GUI.\\n\\nAttributes:\\n    action (Literal[\"click_absolute\"]): The type of action, always \"click_absolute\".\\n    x (int): The x coordinate (pixels from the left edge).\\n    y (int): The y coordinate (pixels from the top edge).', 'properties': {'action': {'const': 'click_absolute', 'default': 'click_absolute', 'title': 'Action', 'type': 'string'}, 'x': {'description': 'The x coordinate, number of pixels from the left edge.', 'title': 'X', 'type': 'integer'}, 'y': {'description': 'The y coordinate, number of pixels from the top edge.', 'title': 'Y', 'type': 'integer'}}, 'required': ['x', 'y'], 'title': 'ClickAbsoluteAction', 'type': 'object'}\n Your target is:\nthe Save button";

/// Holo1.5 (its model card): the image, then its localization prompt with the target;
/// `click_absolute` in pixels of the image sent.
#[test]
fn holo1_5_is_asked_in_its_localization_prompt_and_read_in_its_images_pixels() {
    let (g, shot, user) = asked_image_first("holo1.5");
    assert_eq!(user, [HOLO15_PROMPT]);
    let (w, h) = (shot.size.width, shot.size.height);
    let answer = format!(
        "{{\"action\": \"click_absolute\", \"x\": {}, \"y\": {}}}",
        w - 1,
        h / 5
    );
    let (e, p) = g
        .read(&Reply::text(&answer), "the Save button", shot.size, &crop())
        .unwrap();
    assert_eq!(e.of, [Num(w as f64), Num(h as f64)]);
    let x = on_axis((w - 1) as f64, w, 100, 1600);
    let y = on_axis((h / 5) as f64, h, 50, 900);
    assert_eq!((p.x, p.y), (x, y));
    let example = "{\"action\": \"click_absolute\", \"x\": x, \"y\": y}";
    no_point_in(&g, &shot, &[HOLO15_PROMPT, example, "I cannot see it.", ""]);
}

/// Every family with its own grounding prompt, end to end through the scripted grounder the
/// end-to-end tests use (`model::responder`): it knows the prompt, answers in the family's
/// form and space, and franz reads that answer back to the point meant.
#[test]
fn every_familys_own_prompt_round_trips_through_the_scripted_grounder() {
    use crate::model::responder::{self, Intent, Style};
    let families: Vec<_> = crate::profile::builtin()
        .into_iter()
        .filter(|p| p.grounding.is_some())
        .collect();
    assert!(families.len() >= 9, "{}", families.len());
    for p in families {
        let g = grounder(&p.name);
        let shot = shot(&p.name);
        let body = serde_json::to_value(g.request("the Save button", &shot)).unwrap();
        let click = Intent::Click { fx: 0.25, fy: 0.75 };
        let reply = responder::answer(&body, &click, Style::Asked).content;
        let (_, at) = g
            .read(&Reply::text(&reply), "the Save button", shot.size, &area())
            .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        // a quarter and three quarters of 1920x1080, within the families' rounding and a box
        // answer's centre
        assert!(
            (at.x - 480).abs() <= 4 && (at.y - 810).abs() <= 4,
            "{}: {at:?} from {reply}",
            p.name
        );
    }
}
