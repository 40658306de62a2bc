//! The jq definitions every filter starts with: where jaq's standard library
//! differs from jq (1.6 output, 1.7 behaviour where 1.6 is buggy), these
//! redefine the builtin in jq itself or on the natives of [`super::paths`].

/// Definitions that make jaq behave like jq where they differ:
/// - indexing: `__sk_idx` (what [`super::rewrite`] turns `.[k]` into unless
///   `k` is a string literal) and `getpath` fail on an object indexed by a
///   non-string, where jaq yields null; `__sk_arrpat` does the same for an
///   array pattern (`. as [$a]`) bound to an object; `has`, `length`,
///   `keys`, `ascii_downcase` and `strftime` fail with jq's words;
/// - `halt_error` logs to the host in jaq: raise a marked error the driver
///   prints on the sandbox's stderr instead;
/// - paths: `setpath` creates what's missing (`null | setpath(["a",1]; 2)`),
///   `delpaths`/`del` delete all paths at once, and `__sk_assign`/
///   `__sk_modify` are what [`super::rewrite`] turns `=`/`|=`/`+=` into;
/// - `tojson`, `tostring` and the formats print numbers as jq (`1.0` is
///   `1`); `@base64d` takes unpadded text; `join` prints null as nothing;
/// - `limit` with a negative count yields everything, `walk` is bottom-up
///   and keeps key order, `from_entries` takes jq's key spellings, and
///   `test`/`match`/`capture` take `[re, flags]` and null flags, and all
///   regex builtins share one dialect with look-around and back-references;
/// - `contains`/`inside` reject values of different types, `flatten`
///   flattens objects' values, `gamma` is `lgamma`; `IN`, `INDEX`,
///   `recurse_down`, `@base32`, `@base32d` exist;
/// - `fromjson` refuses text nested deeper than jq parses (256 levels),
///   with jq's words, before jaq's parser could overflow the stack, and
///   reads one value as jq 1.6 does (`super::reading`);
/// - `input` fails when the inputs are exhausted (with jq 1.6's `break`);
///   `ltrimstr`/`rtrimstr` ignore non-strings; `leaf_paths`, `tostream`, `fromstream`,
///   `truncate_stream`, `@csv`, `@tsv` exist;
/// - indices floor (slice ends ceil, NaN is null) and `has(nan)` is false;
///   `nth`, `JOIN`, `builtins` are jq 1.6's; `utf8bytelength`, `strftime`,
///   `strflocaltime` and `mktime` fail with jq's words.
pub(super) const JQ_COMPAT: &str = r#"
def __sk_fromjson: fromjson;
def fromjson: if type != "string" then __sk_fromjson elif __sk_json_too_deep then error("Exceeds depth limit for parsing (while parsing '\(.)')") else __sk_fromjson_text end;
def __sk_idx($k): if type == "object" and ($k | type) != "string" then error("Cannot index object with \($k | type)") elif type == "array" and ($k | type) == "number" then (if $k | isnan then null else .[$k | floor] end) elif (type == "array" or type == "string" or type == "null") and ($k | type) == "object" then .[{"start": ($k.start | if type == "number" then floor else . end), "end": ($k.end | if type == "number" then ceil else . end)}] else .[$k] end;
def __sk_arrpat: if type == "object" then error("Cannot index object with number") else . end;
def getpath($path): reduce $path[] as $p (.; __sk_idx($p));
def __sk_has($k): has($k);
def has($k): ($k | type) as $t | if type == "array" and $t == "number" and ($k | isnan) then false elif (type == "object" and $t == "string") or (type == "array" and $t == "number") then __sk_has($k) elif type == "null" then false else error("Cannot check whether \(type) has a \($t) key") end;
def __sk_describe: "\(type) (\(__sk_tojson | if length > 11 then .[0:11] + "..." else . end))";
def __sk_length: length;
def length: if type == "boolean" then error("\(__sk_describe) has no length") else __sk_length end;
def __sk_keys_unsorted: keys_unsorted;
def keys_unsorted: if type == "object" or type == "array" then __sk_keys_unsorted else error("\(__sk_describe) has no keys") end;
def keys: keys_unsorted | sort;
def __sk_ascii_downcase: ascii_downcase;
def ascii_downcase: if type == "string" then __sk_ascii_downcase else error("explode input must be a string") end;
def __sk_ascii_upcase: ascii_upcase;
def ascii_upcase: if type == "string" then __sk_ascii_upcase else error("explode input must be a string") end;
def tojson: __sk_tojson;
def tostring: __sk_tostring;
def @text: __sk_tostring;
def @json: __sk_tojson;
def @html: __sk_tostring | escape_html;
def @uri: __sk_tostring | encode_uri;
def @base64: __sk_tostring | encode_base64;
def @base64d: __sk_tostring | . + ("=" * ((4 - length % 4) % 4) // "") | decode_base64;
def __sk_sh: if type == "string" then "'" + escape_sh + "'" elif type == "array" or type == "object" then error("\(type) (\(tojson)) can not be escaped for shell") else tojson end;
def @sh: if type == "array" then map(__sk_sh) | join(" ") else __sk_sh end;
def @base32: __sk_base32;
def @base32d: __sk_base32d;
def join($x): reduce .[] as $i (null; (if . == null then "" else . + $x end) + ($i | if type == "boolean" or type == "number" then tojson elif . == null then "" else . end)) // "";
def __sk_contains(b): contains(b);
def contains($b): if type == ($b | type) then __sk_contains($b) else error("\(type) (\(tojson)) and \($b | type) (\($b | tojson)) cannot have their containment checked") end;
def inside(xs): . as $x | xs | contains($x);
def __sk_flatten($d): reduce .[] as $i ([]; if ($i | type) == "array" and $d != 0 then . + ($i | __sk_flatten($d - 1)) else . + [$i] end);
def flatten($d): if $d < 0 then error("flatten depth must not be negative") else __sk_flatten($d) end;
def flatten: __sk_flatten(-1);
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def recurse_down: recurse;
def gamma: lgamma;
def __sk_limit($n; f): limit($n; f);
def limit($n; f): if $n >= 0 then __sk_limit($n; f) else f end;
def halt_error($code): error({"__sandkeep_halt_error": ., "code": $code});
def halt_error: halt_error(5);
def setpath($p; $v): __sk_setpath($p; $v);
def delpaths($ps): __sk_delpaths($ps);
def del(f): __sk_delpaths([path(f)]);
def __sk_assign(paths; $v): __sk_setpaths([path(paths)]; $v);
def __sk_modify(paths; f): __sk_update([path(paths)]; f);
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
def from_entries: reduce .[] as $x ({}; . + {($x | if .key == null then .k // .name // .Name // .K // .Key else .key end | if type == "string" then . else tojson end): ($x | if has("value") then .value elif has("v") then .v else .Value end)});
def with_entries(f): to_entries | map(f) | from_entries;
def fromstream(f): {x: null, e: false} as $init | foreach f as $i ($init; if .e then $init else . end | if $i | length == 2 then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1]) else setpath(["e"]; $i[0] | length == 1) end; if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;
def match($re; $flags): __sk_match($re; $flags)[];
def match($v): if ($v | type) == "array" then match($v[0]; $v[1]) else match($v; null) end;
def test($re; $flags): __sk_match($re; $flags) | length > 0;
def test($v): if ($v | type) == "array" then test($v[0]; $v[1]) else test($v; null) end;
def capture($re; $flags): match($re; $flags) | [.captures[] | select(.name != null) | {key: .name, value: .string}] | from_entries;
def capture($v): if ($v | type) == "array" then capture($v[0]; $v[1]) else capture($v; null) end;
def scan($re; $flags): match($re; "g" + $flags) | if (.captures | length) > 0 then [.captures[].string] else .string end;
def scan($re): scan($re; null);
def __sk_capobj: [.captures[] | select(.name != null) | {key: .name, value: .string}] | from_entries;
def sub($re; str; $flags): [match($re; $flags)] as $ms | if $ms == [] then . else ([$ms[] | __sk_capobj | [str]] | combinations) as $reps | __sk_splice($ms; $reps) end;
def sub($re; str): sub($re; str; "");
def gsub($re; str; $flags): sub($re; str; $flags + "g");
def gsub($re; str): sub($re; str; "g");
def split($re; $flags): __sk_split_at([match($re; "g" + $flags)]);
def splits($re; $flags): split($re; $flags)[];
def splits($re): splits($re; null);
def localtime: gmtime;
def __sk_strftime($f): strftime($f);
def __sk_timeargs: type == "number" or (type == "array" and all(.[]; type == "number"));
def strftime($f): if __sk_timeargs then __sk_strftime($f) else error("strftime/1 requires parsed datetime inputs") end;
def strflocaltime($f): if __sk_timeargs then __sk_strftime($f) else error("strflocaltime/1 requires parsed datetime inputs") end;
def __sk_mktime: mktime;
def mktime: if type != "array" then error("mktime requires array inputs") elif length < 6 then error("mktime requires array of 6 numbers") elif all(.[]; type == "number") | not then error("mktime requires parsed datetime inputs") else __sk_mktime end;
def __sk_utf8bytelength: utf8bytelength;
def utf8bytelength: if type == "string" then __sk_utf8bytelength else error("\(__sk_describe) only strings have UTF-8 byte length") end;
def nth($n; f): if $n < 0 then error("Out of bounds negative array index") else last(limit($n + 1; f)) end;
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def builtins: "input_line_number/0,input_filename/0,now/0,localtime/0,gmtime/0,mktime/0,strflocaltime/1,strftime/1,strptime/1,stderr/0,debug/0,modulemeta/0,get_jq_origin/0,get_prog_origin/0,get_search_list/0,halt_error/1,halt/0,env/0,format/1,error/1,max/0,min/0,sort/0,nan/0,infinite/0,isnormal/0,isnan/0,isinfinite/0,type/0,utf8bytelength/0,length/0,contains/1,has/1,delpaths/1,getpath/1,setpath/2,implode/0,explode/0,split/1,rtrimstr/1,ltrimstr/1,endswith/1,startswith/1,keys_unsorted/0,keys/0,tostring/0,tonumber/0,fromjson/0,tojson/0,lgamma_r/0,modf/0,frexp/0,ldexp/2,trunc/0,significand/0,scalbln/2,scalb/2,round/0,rint/0,nexttoward/2,nextafter/2,nearbyint/0,logb/0,log1p/0,lgamma/0,gamma/0,fmod/2,fmin/2,fmax/2,fma/3,fdim/2,fabs/0,expm1/0,exp10/0,erfc/0,erf/0,drem/2,copysign/2,ceil/0,yn/2,jn/2,y1/0,y0/0,tgamma/0,tanh/0,tan/0,sqrt/0,sinh/0,sin/0,remainder/2,pow/2,log2/0,log10/0,log/0,j1/0,j0/0,hypot/2,floor/0,exp2/0,exp/0,cosh/0,cos/0,cbrt/0,atanh/0,atan2/2,atan/0,asinh/0,asin/0,acosh/0,acos/0,empty/0,not/0,path/1,range/2,halt_error/0,error/0,map/1,select/1,sort_by/1,group_by/1,unique/0,unique_by/1,max_by/1,min_by/1,add/0,del/1,map_values/1,recurse/1,recurse/2,recurse/0,recurse_down/0,to_entries/0,from_entries/0,with_entries/1,reverse/0,indices/1,index/1,rindex/1,paths/0,paths/1,any/2,any/1,any/0,all/2,all/1,all/0,isfinite/0,arrays/0,objects/0,iterables/0,booleans/0,numbers/0,normals/0,finites/0,strings/0,nulls/0,values/0,scalars/0,scalars_or_empty/0,leaf_paths/0,join/1,flatten/1,flatten/0,range/1,fromdateiso8601/0,todateiso8601/0,fromdate/0,todate/0,match/2,match/1,test/2,test/1,capture/2,capture/1,scan/1,splits/2,splits/1,split/2,sub/2,sub/3,gsub/3,gsub/2,range/3,while/2,until/2,limit/2,isempty/1,first/1,last/1,nth/2,first/0,last/0,nth/1,combinations/0,combinations/1,transpose/0,in/1,inside/1,input/0,repeat/1,inputs/0,ascii_downcase/0,ascii_upcase/0,truncate_stream/1,fromstream/1,tostream/0,bsearch/1,walk/1,INDEX/2,INDEX/1,JOIN/2,JOIN/3,JOIN/4,IN/1,IN/2,pow10/0,builtins/0" / ",";
def __sk_tonumber: tonumber;
def tonumber: if type == "number" or type == "string" then __sk_tonumber else error("\(__sk_describe) cannot be parsed as a number") end;
def __sk_fromdate: fromdate;
def fromdate: if type == "string" then (. as $d | try __sk_fromdate catch error("date \($d | tojson) does not match format \"%Y-%m-%dT%H:%M:%SZ\"")) else error("strptime/1 requires string inputs and arguments") end;
def todate: if type == "number" then floor end | strftime("%Y-%m-%dT%H:%M:%SZ");
def todateiso8601: todate;
def input: [limit(1; inputs)] | if length == 0 then error("break") else .[0] end;
def ltrimstr($x): if type == "string" and ($x | type) == "string" and startswith($x) then .[($x | length):] else . end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" and endswith($x) and ($x | length) > 0 then .[:length - ($x | length)] else . end;
def leaf_paths: paths(scalars);
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def @csv: if type != "array" then error("\(type) (\(tojson)) cannot be csv-formatted, only array") else map(if type == "string" then "\"" + gsub("\""; "\"\"") + "\"" elif type == "null" then "" elif type == "number" or type == "boolean" then tojson else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",") end;
def @tsv: if type != "array" then error("\(type) (\(tojson)) cannot be tsv-formatted, only array") else map(if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r") elif type == "null" then "" elif type == "number" or type == "boolean" then tojson else error("\(type) (\(tojson)) is not valid in a tsv row") end) | join("\t") end;
"#;
