# tests/reliability/lib.sh: shared helpers of the reliability tests (sourced).
# jget FILE EXPR: evaluate a JavaScript expression over the JSON document in
# FILE (bound to `d`); prints the value, or nothing when it is undefined.
jget() {
	node -e 'const fs=require("fs");let d;try{d=JSON.parse(fs.readFileSync(process.argv[1],"utf8"))}catch(e){process.exit(3)}
const v=(function(){return eval(process.argv[2])})();if(v!==undefined&&v!==null)console.log(typeof v==="object"?JSON.stringify(v):String(v))' "$1" "$2"
}
fail() { echo "FAIL: $*"; exit 1; }
# ms sleep
msleep() { sleep "$(awk -v m="$1" 'BEGIN{printf "%.3f", m/1000}')"; }
now_ms() { date +%s%3N; }
