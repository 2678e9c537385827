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
