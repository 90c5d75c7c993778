/*
 * store/fetch_refs.c: the refs a remote advertises, sorted into a pull's
 * list (tg_store_fetched): refs/tools/<valid name> and refs/active/<valid
 * name> become one incoming entry per tool, every other ref is refused by
 * name, except a host's review notes (refs/toolgate-review/<id>,
 * review_carry.c). Both ways of listing a remote use it (fetch.c for the smart
 * transports, fetch_local.c for a path or file:// remote).
 */
#include "store_internal.h"

#include <string.h>

int st_fetched_add(tg_store_fetched *f, const char *tool, tg_store_incoming **out)
{
	tg_store_incoming *ni;

	if (strlen(tool) >= sizeof(ni->tool))
		return tg_error_set(TG_ERR_INVALID, "tool name too long");
	ni = realloc(f->items, (f->n + 1) * sizeof(*ni));
	if (!ni)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	f->items = ni;
	*out = &ni[f->n++];
	memset(*out, 0, sizeof(**out));
	snprintf((*out)->tool, sizeof((*out)->tool), "%s", tool);
	return 0;
}

static tg_store_incoming *fetched_find(tg_store_fetched *f, const char *tool)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->items[i].tool, tool))
			return &f->items[i];
	return NULL;
}

int st_fetch_take_ref(tg_store_fetched *f, const char *name, const git_oid *id)
{
	const size_t lt = strlen(ST_TOOLS_PREFIX), la = strlen(ST_ACTIVE_PREFIX);
	int is_tool = !strncmp(name, ST_TOOLS_PREFIX, lt);
	int is_active = !strncmp(name, ST_ACTIVE_PREFIX, la);
	const char *tool = is_tool ? name + lt : is_active ? name + la : NULL;
	tg_store_incoming *in;
	int rc;

	if (!strcmp(name, "HEAD"))
		return 0;
	if ((rc = st_review_take_ref(f, name, id)) != 0)
		return rc < 0 ? rc : 0;
	if (!tool || !tg_name_valid(tool))
		return st_problem_add(&f->refused, "ref %.200s: refused (only refs/tools/<name> and "
						   "refs/active/<name> with a valid tool name)", name);
	if (!(in = fetched_find(f, tool)) && (rc = st_fetched_add(f, tool, &in)) < 0)
		return rc;
	if (is_tool) {
		in->has_tip = 1;
		git_oid_tostr(in->adv_tip, sizeof(in->adv_tip), id);
	} else {
		in->has_active = 1;
		git_oid_tostr(in->adv_active, sizeof(in->adv_active), id);
	}
	return 0;
}
