# sonic_schema.jq: the errors of a config_db fragment against the SONiC YANG
# models' tables, keys and leaves that fabricd's RoCE plans use
# (sonic-buildimage src/sonic-yang-models/yang-models/, cited in docs/roce.md).
# Input: the fragment; $ports: the switch's port names. Prints one line per error.
def leaves: {
  DSCP_TO_TC_MAP: null, TC_TO_QUEUE_MAP: null, TC_TO_PRIORITY_GROUP_MAP: null, MAP_PFC_PRIORITY_TO_QUEUE: null,
  PORT_QOS_MAP: ["dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map", "pfc_to_pg_map",
                 "tc_to_dscp_map", "dot1p_to_tc_map", "tc_to_dot1p_map", "pfc_enable", "pfcwd_sw_enable", "scheduler"],
  CABLE_LENGTH: null,
  BUFFER_PROFILE: ["pool", "xon", "xoff", "size", "dynamic_th", "static_th", "xon_offset", "headroom_type",
                   "packet_discard_action"],
  BUFFER_PG: ["profile"],
  WRED_PROFILE: (["wred_green_enable", "wred_yellow_enable", "wred_red_enable", "ecn"] +
                 ([["green", "yellow", "red"][] as $c | "\($c)_min_threshold", "\($c)_max_threshold",
                   "\($c)_drop_probability"])),
  SCHEDULER: ["type", "weight", "priority", "meter_type", "cir", "cbs", "pir", "pbs"],
  QUEUE: ["scheduler", "wred_profile"],
  PFC_WD: ["action", "detection_time", "restoration_time", "pfc_stat_history", "POLL_INTERVAL"]
};
def err(msg): "\(msg)";
def map_table: {dscp_to_tc_map: "DSCP_TO_TC_MAP", tc_to_queue_map: "TC_TO_QUEUE_MAP", tc_to_pg_map: "TC_TO_PRIORITY_GROUP_MAP",
  pfc_to_queue_map: "MAP_PFC_PRIORITY_TO_QUEUE", pfc_to_pg_map: "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
  tc_to_dscp_map: "TC_TO_DSCP_MAP", dot1p_to_tc_map: "DOT1P_TO_TC_MAP", tc_to_dot1p_map: "TC_TO_DOT1P_MAP"}[.];
. as $db
| (keys[] | . as $k | select(leaves | has($k) | not) | err("unknown table \($k)")),
  (to_entries[] | .key as $t | select(leaves[$t] != null) | .value | to_entries[] | .key as $k
     | (.value | keys[] | select(. as $l | leaves[$t] | index($l) | not) | err("\($t)|\($k): unknown leaf \(.)")),
       (.value | to_entries[] | select(.value | type != "string") | err("\($t)|\($k).\(.key): not a string"))),
  # maps: small integer keys and values
  (["DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"][] as $t
     | $db[$t] // {} | to_entries[] | .key as $m | .value | to_entries[]
     | select((.key | test("^[0-9]+$") | not) or (.value | test("^[0-7]$") | not)) | err("\($t)|\($m): \(.key) -> \(.value)")),
  # every key that names a port names one of the switch's
  ((($db.PORT_QOS_MAP // {}) | keys[]), (($db.PFC_WD // {}) | keys[] | select(. != "GLOBAL")),
   (($db.BUFFER_PG // {}) | keys[] | split("|")[0]), (($db.QUEUE // {}) | keys[] | split("|")[0]),
   (($db.CABLE_LENGTH // {}) | .[] | keys[])
     | select(. as $p | $ports | index($p) | not) | err("no port \(.)")),
  (($db.BUFFER_PG // {}) | keys[] | select(split("|")[1] | test("^[0-7](-[0-7])?$") | not) | err("BUFFER_PG|\(.): pg_num")),
  (($db.QUEUE // {}) | keys[] | select(split("|")[1] | test("^[0-7](-[0-7])?$") | not) | err("QUEUE|\(.): qindex")),
  (($db.PORT_QOS_MAP // {}) | to_entries[] | .key as $p | .value
     | (to_entries[] | select(.key | endswith("_map")) | (.key | map_table) as $t | .value as $m
         | select(($db[$t] // {}) | has($m) | not) | err("PORT_QOS_MAP|\($p).\(.key): no map \($m) in \($t)")),
       (select((.pfc_enable // "") | test("^([0-7](,[0-7])*)?$") | not) | err("PORT_QOS_MAP|\($p): pfc_enable"))),
  (($db.BUFFER_PG // {}) | to_entries[] | select(.value.profile as $pr | $db.BUFFER_PROFILE | has($pr) | not)
     | err("BUFFER_PG|\(.key): no profile \(.value.profile)")),
  (($db.BUFFER_PROFILE // {}) | to_entries[] | select((.value.size | tonumber) < (.value.xon | tonumber) + (.value.xoff | tonumber))
     | err("BUFFER_PROFILE|\(.key): size below xon + xoff")),
  (($db.QUEUE // {}) | to_entries[] | .key as $q | .value
     | (.scheduler as $s | select($db.SCHEDULER | has($s) | not) | err("QUEUE|\($q): no scheduler \($s)")),
       (.wred_profile as $w | select($w and ($db.WRED_PROFILE | has($w) | not)) | err("QUEUE|\($q): no wred profile \($w)"))),
  (($db.SCHEDULER // {}) | to_entries[] | select(.value.type | IN("DWRR", "WRR", "STRICT") | not) | err("SCHEDULER|\(.key): type")),
  (($db.WRED_PROFILE // {}) | to_entries[] | .key as $w | .value | ["green", "yellow", "red"][] as $c
     | select((.["\($c)_min_threshold"] | tonumber) > (.["\($c)_max_threshold"] | tonumber)) | err("WRED_PROFILE|\($w): \($c) min above max")),
  (($db.WRED_PROFILE // {}) | keys[] | select(test("^[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}$") | not) | err("WRED_PROFILE|\(.): name")),
  (($db.CABLE_LENGTH // {}) | .[] | to_entries[] | select(.value | test("^[0-9]+m$") | not) | err("CABLE_LENGTH \(.key): \(.value)")),
  (($db.PFC_WD // {}) | to_entries[] | select(.key != "GLOBAL") | .key as $p | .value
     | select((.action | IN("drop", "forward", "alert") | not) or (.detection_time | tonumber) < 100 or
              (.detection_time | tonumber) > 5000 or (.restoration_time | tonumber) < 100) | err("PFC_WD|\($p)"))
