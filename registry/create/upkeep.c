/*
 * registry/create/upkeep.c: keeping a long-lived home small. After a create and on
 * `toolgate gc`, cache/ is brought under cache_budget_mb (cache.c,
 * inactive versions' binaries first). The store is packed
 * (tg_store_pack) on demand by `toolgate gc` and automatically after a
 * create once its loose objects pass pack_loose_objects (config.json,
 * default 1000, well under git gc --auto's 6700; 0 = never automatically).
 * The automatic check counts the loose objects (a readdir of the fan-out
 * folders, about a millisecond, next to a create's hundreds) and packs
 * when they reach the threshold. History is never rewritten.
 */
#include "registry/create/create.h"

#include <string.h>

static json_t *pack_json(const tg_store_pack_stats *st)
{
	return json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:I, s:I}", "busy", st->busy,
			 "loose_before", (json_int_t)st->loose_before, "packs_before",
			 (json_int_t)st->packs_before, "loose_after", (json_int_t)st->loose_after,
			 "packs_after", (json_int_t)st->packs_after, "objects_packed",
			 (json_int_t)st->objects, "loose_removed", (json_int_t)st->loose_removed,
			 "pack", st->pack, "loose_refs_before", (json_int_t)st->refs_before,
			 "loose_refs_after", (json_int_t)st->refs_after);
}

int reg_upkeep_after_create(tg_registry *r)
{
	tg_store_pack_stats st;
	reg_evict_stats ev;
	size_t loose = 0, packs = 0;
	tg_store *s;
	int rc;

	if (r->cfg.cache_budget_mb &&
	    (rc = reg_cache_evict(r, (uint64_t)r->cfg.cache_budget_mb << 20, &ev)) < 0)
		return rc;
	if (!r->cfg.pack_loose_objects)
		return 0;
	if ((rc = reg_store(r, &s)) < 0 || (rc = tg_store_object_counts(s, &loose, &packs)) < 0)
		return rc;
	if (loose < r->cfg.pack_loose_objects)
		return 0;
	return tg_store_pack(s, &st);
}

int tg_registry_gc(json_t **out, tg_registry *r, const tg_actor *who)
{
	_cleanup_json_ json_t *res = NULL;
	tg_store_pack_stats st;
	reg_evict_stats ev;
	tg_store *s;
	int rc;

	*out = NULL;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if ((rc = tg_store_pack(s, &st)) < 0)
		return tg_error_prefix("store");
	if ((rc = reg_cache_evict(r, (uint64_t)r->cfg.cache_budget_mb << 20, &ev)) < 0)
		return rc;
	res = json_pack("{s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}", "store", pack_json(&st), "cache",
			"bytes_before", (json_int_t)ev.bytes_before, "bytes_after",
			(json_int_t)ev.bytes_after, "evicted", (json_int_t)ev.evicted,
			"evicted_active", (json_int_t)ev.evicted_active, "kept_in_use",
			(json_int_t)ev.kept_in_use, "budget_bytes",
			(json_int_t)((uint64_t)r->cfg.cache_budget_mb << 20));
	if (!res)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((!st.busy && st.objects > 0) || ev.evicted > 0) {
		json_t *d = json_pack("{s:I, s:I, s:s, s:I}", "objects_packed", (json_int_t)st.objects,
				      "loose_removed", (json_int_t)st.loose_removed, "pack", st.pack,
				      "cache_evicted", (json_int_t)ev.evicted);
		rc = d ? tg_registry_audit(r, who, "gc", NULL, d) : tg_error_set(TG_ERR_NOMEM,
										 "out of memory");
		json_decref(d);
		if (rc < 0)
			return rc;
	}
	*out = TG_TAKE_PTR(res);
	return 0;
}
