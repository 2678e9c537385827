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
    let q = grounder("qwen3-vl").prompt();
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
    let g = grounder("ui-venus-1.5");
    let shot = shot("ui-venus-1.5");
    let r = g.request("the Save button", &shot);
    let (system, user, image) = texts(&r);
    assert_eq!(system, None);
    // the image, then the prompt
    assert_eq!(image, 0);
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
