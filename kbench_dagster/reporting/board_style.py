"""The board's inline CSS and filter script: a page needs no other file and no network to show."""

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{background:#1d2330;color:#fff;padding:.6em 1.2em}header a{color:#cfe0ff;margin-right:1.2em;text-decoration:none}
main{padding:1em 1.4em;max-width:1500px}h1{font-size:1.35em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em}
table{border-collapse:collapse;font-size:.86em;margin:.5em 0}th,td{border-bottom:1px solid #e2e5ea;padding:.25em .55em;
text-align:right;vertical-align:top}th{background:#eef1f5;position:sticky;top:0}td.l,th.l{text-align:left}
a.num{color:#0b57d0;text-decoration:none}a.num:hover{text-decoration:underline}.ci{color:#677;font-size:.85em}
.note{background:#fff8e1;border-left:4px solid #f2b600;padding:.5em .8em;margin:.8em 0;font-size:.9em}
.warn{color:#a4461b}.tier{font-weight:600}.pass{color:#187a2f}.fail{color:#b3261e}.infra{color:#7a5b00}
pre{background:#f3f4f7;padding:.6em;overflow-x:auto;white-space:pre-wrap;font-size:.82em;max-height:40em}
.turn{border-left:4px solid #ccd;margin:.6em 0;padding:.2em .8em;background:#fff}.turn.user{border-color:#5b8def}
.turn.assistant{border-color:#3aa757}.turn.tool_call{border-color:#b06bd8}.turn.tool_result{border-color:#999}
.turn.error{border-color:#d93025}.turn.note{border-color:#f2b600}.who{font-size:.78em;color:#555;font-weight:600}
.filters select{margin-right:1em}svg text{font-size:11px;font-family:inherit}
.chip{font-size:.75em;background:#eef1f5;border:1px solid #ccd;border-radius:.7em;padding:0 .45em;color:#445}
"""

FILTER_JS = """
function kbFilter(){
  var sel={};document.querySelectorAll('.filters select').forEach(function(s){sel[s.name]=s.value;});
  document.querySelectorAll('tr[data-group]').forEach(function(tr){
    var show=true;for(var k in sel){if(sel[k]&&tr.dataset[k]!==sel[k]){show=false;}}
    tr.style.display=show?'':'none';});
  var q=[];for(var k in sel){if(sel[k]){q.push(k+'='+encodeURIComponent(sel[k]));}}
  try{history.replaceState(null,'',q.length?'?'+q.join('&'):location.pathname);}catch(e){}
}
document.addEventListener('DOMContentLoaded',function(){
  // filters live in the URL (index.html?agent=pi&condition=base), so a link lands on the same view
  var params=new URLSearchParams(location.search);
  document.querySelectorAll('.filters select').forEach(function(s){\
if(params.get(s.name)){s.value=params.get(s.name);}});
  kbFilter();
});
"""
