// The MiniWoB++ oracle's page script (tests/common/miniwob.rs): reads the task's DOM and
// returns the next action of a perfect player in CSS pixels of the page, with the page's
// place on screen. It keeps what it already did in window.__oracle and records where the
// page saw each mousedown (window.__oracleLanded), so a failure says where a click landed.
function miniwobOracle() {
  if (!window.__oracle) {
    window.__oracle = {aimed: []};
    window.__oracleLanded = [];
    document.addEventListener('mousedown', function (e) {
      window.__oracleLanded.push([e.clientX, e.clientY]);
    }, true);
  }
  var st = window.__oracle;
  var task = location.pathname.split('/').pop().replace(/\.html$/, '');
  var q = document.getElementById('query').textContent.replace(/\s+/g, ' ').trim();
  var box = function (el) {
    var r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  var click = function (el) { st.aimed.push(el); return {kind: 'click', box: box(el)}; };
  var type = function (text) { return {kind: 'type', text: text, box: [0, 0, 0, 0]}; };
  var key = function (keys) { return {kind: 'key', keys: keys, box: [0, 0, 0, 0]}; };
  var done = function (why) { return {kind: 'done', why: why, box: [0, 0, 0, 0]}; };
  var quoted = function () { return (q.match(/"([^"]*)"/g) || []).map(function (s) { return s.slice(1, -1); }); };
  var byText = function (sel, text) {
    return Array.prototype.find.call(document.querySelectorAll(sel), function (e) {
      return e.textContent.trim() === text;
    });
  };
  // an input: nothing (null) once it holds the value; else click it unless focused, select
  // what it holds, and type the value over it
  var fill = function (el, value) {
    if (el.value === value) return null;
    if (document.activeElement !== el) return click(el);
    if (el.value !== '' && st.selected !== el) { st.selected = el; return key('ctrl+a'); }
    st.selected = null;
    return type(value);
  };
  var step = function () {
    if (window.__franzEnd || WOB_DONE_GLOBAL) return done('the page scored it');
    var sub = document.getElementById('subbtn');
    switch (task) {
      case 'click-button': return click(byText('#area button', quoted()[0]));
      case 'click-link': return click(byText('#area span.alink', quoted()[0]));
      case 'click-test': return click(sub);
      case 'click-test-2': return click(byText('#area button', q.match(/button (\w+)/)[1]));
      case 'click-button-sequence':
        return click(st.aimed.indexOf(sub) < 0 ? sub : document.getElementById('subbtn2'));
      case 'click-dialog': return click(document.querySelector('button.ui-dialog-titlebar-close'));
      case 'click-tab': return click(byText('#area ul li a', q.match(/Tab #\d+/)[0]));
      case 'click-collapsible': {
        var h = document.querySelector('#area h3');
        return click(h.getAttribute('aria-expanded') === 'true' ? sub : h);
      }
      case 'click-option':
      case 'click-checkboxes': {
        var m = q.match(/^Select (.*) and click Submit\.$/)[1];
        var want = m === 'nothing' ? [] : m.split(', ');
        var labels = document.querySelectorAll('#boxes label');
        for (var i = 0; i < labels.length; i++) {
          var input = labels[i].querySelector('input');
          var on = want.indexOf(labels[i].textContent.trim()) >= 0;
          if (input.checked !== on) return click(input);
        }
        return click(sub);
      }
      case 'focus-text': return click(document.getElementById('tt'));
      case 'enter-text':
      case 'enter-text-dynamic':
        return fill(document.getElementById('tt'), quoted()[0]) || click(sub);
      case 'enter-password': {
        var pw = quoted()[0];
        return fill(document.getElementById('password'), pw)
          || fill(document.getElementById('verify'), pw) || click(sub);
      }
      case 'login-user': {
        var v = quoted();
        return fill(document.getElementById('username'), v[0])
          || fill(document.getElementById('password'), v[1]) || click(sub);
      }
      case 'use-slider': return slider(sub);
      case 'drag-box': {
        var small = document.getElementById('draggableSmall');
        var large = document.getElementById('draggableLarge');
        if (smallBoxContained()) return click(sub);
        var b = box(large);
        return {kind: 'drag', box: box(small), to: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]};
      }
    }
    return done('the oracle does not know task ' + task);
  };
  // drag the handle to the value's place, then correct with the arrow keys (the handle keeps
  // the focus after a drag); submit when the slider shows the value
  var slider = function (sub) {
    var n = parseInt(q.match(/Select (-?\d+)/)[1], 10);
    var s = $('#slider');
    var value = s.slider('value'), min = s.slider('option', 'min'), max = s.slider('option', 'max');
    if (value === n) return click(sub);
    var handle = document.querySelector('#slider .ui-slider-handle');
    var vertical = s.slider('option', 'orientation') === 'vertical';
    if (Math.abs(value - n) <= 3 && document.activeElement === handle) {
      return key(value < n ? (vertical ? 'Up' : 'Right') : (vertical ? 'Down' : 'Left'));
    }
    var b = box(document.getElementById('slider'));
    var t = (n - min) / (max - min);
    var to = vertical ? [(b[0] + b[2]) / 2, b[3] - t * (b[3] - b[1])] : [b[0] + t * (b[2] - b[0]), (b[1] + b[3]) / 2];
    return {kind: 'drag', box: box(handle), to: to};
  };
  var out = step();
  out.task = task;
  out.landed = window.__oracleLanded.slice();
  window.__oracleLanded = [];
  out.metrics = {
    dpr: window.devicePixelRatio,
    ox: window.screenX + (window.outerWidth - window.innerWidth),
    oy: window.screenY + (window.outerHeight - window.innerHeight),
    screenW: screen.width,
    screenH: screen.height
  };
  return out;
}
