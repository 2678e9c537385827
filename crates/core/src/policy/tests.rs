use super::*;
use crate::action::ActionKind;

fn screen() -> PixelRect {
    PixelRect::new(0, 0, 1000, 500)
}

fn policy(toml_text: &str) -> Policy {
    let c: PolicyConfig = toml::from_str(toml_text).unwrap();
    Policy::new(&c).unwrap()
}

fn check(p: &Policy, kind: ActionKind, typed: &str) -> Verdict {
    let a = Action::from(kind);
    let area = Crop::FULL.work_area(screen()).unwrap();
    let mut ctx = Context::of(&a, area, screen(), None);
    ctx.field = Field::with_text(typed);
    p.check(&a, &ctx)
}

fn click(x: i32, y: i32) -> ActionKind {
    ActionKind::Click {
        x: Some(x),
        y: Some(y),
    }
}

#[test]
fn the_default_allows_everything() {
    let p = Policy::default();
    assert_eq!(check(&p, click(1, 1), ""), Verdict::Allow);
    assert_eq!(
        check(
            &p,
            ActionKind::Key {
                keys: "alt+f4".into()
            },
            ""
        ),
        Verdict::Allow
    );
}

#[test]
fn regions_are_boxes_of_the_whole_screen() {
    let p = policy("deny_regions = [[0, 900, 1000, 1000]]");
    assert!(
        matches!(check(&p, click(500, 950), ""), Verdict::Deny { rule } if rule.contains("deny_regions"))
    );
    assert_eq!(check(&p, click(500, 850), ""), Verdict::Allow);
    // a drag whose end lands in the region is refused too
    let drag = ActionKind::Drag {
        x: Some(10),
        y: Some(10),
        x2: 10,
        y2: 990,
    };
    assert!(matches!(check(&p, drag, ""), Verdict::Deny { .. }));
}

#[test]
fn keys_match_after_alias_normalisation_in_any_order() {
    let p = policy(r#"deny_keys = ["Ctrl+Alt+Delete", "alt-f4"]"#);
    for k in ["alt+ctrl+del", "control alt delete", "Alt+F4"] {
        assert!(
            matches!(
                check(&p, ActionKind::Key { keys: k.into() }, ""),
                Verdict::Deny { .. }
            ),
            "{k}"
        );
    }
    assert_eq!(
        check(
            &p,
            ActionKind::Key {
                keys: "ctrl+c".into()
            },
            ""
        ),
        Verdict::Allow
    );
}

#[test]
fn text_is_matched_with_the_field_as_typing_leaves_it() {
    let p = policy(r#"deny_text = ['rm\s+-rf']"#);
    let t = |s: &str| ActionKind::Type { text: s.into() };
    assert!(matches!(check(&p, t("rm -rf /"), ""), Verdict::Deny { .. }));
    assert!(matches!(check(&p, t("-rf /"), "rm "), Verdict::Deny { .. }));
    assert_eq!(check(&p, t("ls -rf"), ""), Verdict::Allow);
    // the field starts afresh after Enter and after a click
    let after_enter = Field::with_text("rm ").after(&ActionKind::Key {
        keys: "Return".into(),
    });
    assert_eq!(after_enter.text(), "");
    assert_eq!(Field::with_text("rm ").after(&click(1, 1)).text(), "");
    let field = Field::default().after(&t("a\nrm ")).after(&t("x"));
    assert_eq!(field.text(), "rm x");
    assert_eq!(check(&p, t("-rf"), &after_enter.text()), Verdict::Allow);
}

#[test]
fn edits_that_make_the_field_match_are_refused_as_typing_it_would_be() {
    let p = policy(r#"deny_text = ['touch pwned']"#);
    let t = |s: &str| ActionKind::Type { text: s.into() };
    let k = |s: &str| ActionKind::Key { keys: s.into() };
    let denied = |v: Verdict| matches!(v, Verdict::Deny { .. });
    assert!(denied(check(&p, t("touch pwnex\u{8}d"), "")));
    assert!(denied(check(&p, t("d"), "touch pwne")));
    assert!(denied(check(&p, k("d"), "touch pwne")));
    // text typed and erased within one action is caught as sent
    assert!(denied(check(&p, t("touch pwned\u{8}\u{8}"), "")));
    // a key that leaves the text as it is, or a move, is not matched again
    assert_eq!(check(&p, k("ctrl+s"), "touch pwn"), Verdict::Allow);
    let anchored = policy(r#"deny_text = ['^touch pwned$']"#);
    assert!(denied(check(&anchored, k("backspace"), "touch pwnedx")));
    assert_eq!(check(&anchored, k("left"), "touch pwnedx"), Verdict::Allow);
}

#[test]
fn confirm_rules_route_to_a_person_and_deny_wins() {
    let p = policy(
        r#"
deny_keys = ["alt+f4"]
[confirm]
keys = ["ctrl+s"]
regions = [[0, 0, 100, 100]]
text = ["password"]
"#,
    );
    assert!(matches!(
        check(
            &p,
            ActionKind::Key {
                keys: "ctrl+s".into()
            },
            ""
        ),
        Verdict::Confirm { .. }
    ));
    assert!(matches!(
        check(&p, click(10, 10), ""),
        Verdict::Confirm { .. }
    ));
    assert!(matches!(
        check(
            &p,
            ActionKind::Type {
                text: "my password".into()
            },
            ""
        ),
        Verdict::Confirm { .. }
    ));
    assert!(matches!(
        check(
            &p,
            ActionKind::Key {
                keys: "alt+f4".into()
            },
            ""
        ),
        Verdict::Deny { .. }
    ));
    assert!(p.has_confirm());
}

#[test]
fn windows_must_match_a_pattern() {
    let p = policy(r#"allow_only_windows = ["^XTerm$"]"#);
    let a = Action::from(click(500, 500));
    let area = Crop::FULL.work_area(screen()).unwrap();
    let mut ctx = Context::of(&a, area, screen(), None);
    // without a lookup: refused (it cannot be known)
    assert!(matches!(p.check(&a, &ctx), Verdict::Deny { .. }));
    let xterm = PointedWindow {
        id: 1,
        class: "XTerm".into(),
        instance: "xterm".into(),
        title: "bash".into(),
    };
    ctx.windows = Some(vec![Some(xterm)]);
    assert_eq!(p.check(&a, &ctx), Verdict::Allow);
    ctx.windows = Some(vec![None]);
    assert!(
        matches!(p.check(&a, &ctx), Verdict::Deny { rule } if rule.contains("allow_only_windows"))
    );
    // keys are not pointer actions
    let k = Action::from(ActionKind::Key { keys: "a".into() });
    assert_eq!(
        p.check(&k, &Context::of(&k, area, screen(), None)),
        Verdict::Allow
    );
}

#[test]
fn bad_rules_are_errors_that_name_them() {
    let bad = |t: &str| Policy::new(&toml::from_str(t).unwrap()).unwrap_err().0;
    assert!(bad("deny_regions = [[10, 10, 5, 20]]").contains("[10, 10, 5, 20]"));
    assert!(bad(r#"deny_keys = ["ctrl+warp"]"#).contains("ctrl+warp"));
    assert!(bad(r#"deny_text = ["("]"#).contains("regular expression"));
    assert!(bad("policy_violations_max = 0").contains("at least 1"));
}
