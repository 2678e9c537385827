//! The report's player: the run watched back, one frame per turn. A frame is the turn's
//! screenshot with its actions drawn (`marks.rs`), and beside it the turn's story or notes and
//! its actions. A scrubber picks the turn, play and pause step through them (one a second; the
//! arrow keys step too, the space bar plays).
//!
//! The page stays one offline file: the player takes everything from the turns' own sections
//! below it (the same image data URL, clones of their marks and action lists, the story by
//! `textContent`), so a frame costs no bytes twice and no model text is parsed as HTML.
//! `<body data-frame data-playing>` say where it is, for a reader and for the browser tests.

/// Milliseconds a frame shows while playing.
pub const FRAME_MS: u32 = 1000;

pub const STYLE: &str = "#player{border:1px solid #ccc;padding:.5em;margin:.5em 0}\
#stage{display:flex;gap:1em;align-items:flex-start}#stage .shot{flex:0 1 68%}\
#frame-side{flex:1 1 32%;min-width:12em}#frame-story{max-height:24em;overflow:auto}\
#controls{display:flex;gap:.75em;align-items:center;margin-top:.5em}#scrubber{flex:1}\
#play{min-width:6em}.shot{position:relative;display:inline-block;max-width:100%;line-height:0}\
.shot img{max-width:100%;border:1px solid #999}\
.shot svg{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}";

/// The player's markup for `turns` turns (none: a note instead).
pub fn html(turns: usize) -> String {
    if turns == 0 {
        return "<p class=\"note\" id=\"player\">no turns were recorded</p>".into();
    }
    format!(
        "<div id=\"player\" data-frames=\"{turns}\" data-interval=\"{FRAME_MS}\">\
         <div id=\"stage\"><div class=\"shot\"><img id=\"frame\" alt=\"the turn's screenshot\">\
         <svg id=\"frame-marks\"></svg></div>\
         <div id=\"frame-side\"><p id=\"frame-label\"></p><p class=\"note\" id=\"frame-none\" hidden>this turn kept no screenshot</p>\
         <div class=\"story\" id=\"frame-story\"></div><ol id=\"frame-actions\"></ol></div></div>\
         <div id=\"controls\"><button id=\"play\" type=\"button\">play</button>\
         <input id=\"scrubber\" type=\"range\" min=\"1\" max=\"{turns}\" value=\"1\" step=\"1\" aria-label=\"turn\"></div></div>"
    )
}

/// The player's behaviour. Plain ES5 and DOM calls: no library, no network.
pub const SCRIPT: &str = r#"<script>(function(){
var turns=[].slice.call(document.querySelectorAll('section.turn'));
var p=document.getElementById('player');if(!p||!turns.length){return}
var img=document.getElementById('frame'),none=document.getElementById('frame-none'),
story=document.getElementById('frame-story'),label=document.getElementById('frame-label'),
sc=document.getElementById('scrubber'),btn=document.getElementById('play'),
ms=+p.getAttribute('data-interval')||1000,at=0,timer=null;
function swap(id,from,make){var old=document.getElementById(id);var n=from?from.cloneNode(true):make();
n.id=id;old.parentNode.replaceChild(n,old)}
function show(i){at=Math.max(0,Math.min(turns.length-1,i));var s=turns[at];
var shot=s.querySelector('.shot img');
if(shot){img.src=shot.src;img.hidden=false}else{img.removeAttribute('src');img.hidden=true}
none.hidden=!!shot;
swap('frame-marks',s.querySelector('.shot svg'),function(){return document.createElementNS('http://www.w3.org/2000/svg','svg')});
swap('frame-actions',s.querySelector('ol.actions'),function(){return document.createElement('ol')});
var st=s.querySelector('.story');story.textContent=st?st.textContent:'';
label.textContent='turn '+s.getAttribute('data-turn')+' ('+(at+1)+' of '+turns.length+')';
sc.value=String(at+1);document.body.setAttribute('data-frame',String(at+1))}
function pause(){if(timer){clearInterval(timer);timer=null}btn.textContent='play';
document.body.setAttribute('data-playing','false')}
function play(){if(at>=turns.length-1){show(0)}btn.textContent='pause';
document.body.setAttribute('data-playing','true');
timer=setInterval(function(){if(at>=turns.length-1){pause()}else{show(at+1)}},ms)}
sc.addEventListener('input',function(){show(+sc.value-1)});
btn.addEventListener('click',function(){if(timer){pause()}else{play()}});
document.addEventListener('keydown',function(e){if(e.target===sc||e.target===btn){return}
if(e.key==='ArrowRight'){pause();show(at+1)}else if(e.key==='ArrowLeft'){pause();show(at-1)}
else if(e.key===' '){e.preventDefault();if(timer){pause()}else{play()}}});
show(0);pause()})();</script>"#;
