/*
 * registry/replica/remotes.c: the remotes of a home and push. They live in
 * <home>/remotes.json, {"remotes": {"NAME": "URL"}, "limits": {...}},
 * written atomically; a name is a tool-like name, a URL a local path or a
 * file://, git://, ssh:// or https:// URL (the store's rule). "limits"
 * overrides the caps of one pull (docs/STORE.md): max_objects, max_bytes,
 * max_refs, max_versions. push sends the store's histories fast-forward
 * only and is audited; a remote that moved is TG_ERR_CONFLICT ("pull
 * first"), never overwritten.
 */
#include "registry/replica/replica.h"

#include <errno.h>
#include <string.h>

#define REMOTES_FILE "remotes.json"

static int load(json_t **out, tg_registry *r)
{
	_cleanup_free_ char *path = tg_path_join(r->home, REMOTES_FILE);
	static const char *const top[] = { "remotes", "limits", NULL };
	static const char *const lk[] = { "max_objects", "max_bytes", "max_refs", "max_versions",
					  NULL };
	tg_json_limits lim = { 1u << 20, 8 };
	json_t *rem, *lims, *v;
	const char *k;
	int rc;

	*out = NULL;
	if (!path)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (access(path, F_OK) != 0) {
		*out = json_pack("{s:{}}", "remotes");
		return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	if ((rc = tg_json_parse_file(out, path, &lim)) < 0)
		return tg_error_prefix("%s", REMOTES_FILE);
	if (!json_is_object(*out) || tg_json_check_keys(*out, top, REMOTES_FILE) < 0)
		goto bad;
	rem = json_object_get(*out, "remotes");
	if (!rem) {
		json_object_set_new(*out, "remotes", json_object());
		rem = json_object_get(*out, "remotes");
	}
	if (!json_is_object(rem))
		goto bad;
	json_object_foreach(rem, k, v) {
		if (!tg_name_valid(k) || !json_is_string(v) || tg_store_check_url(json_string_value(v)) < 0)
			goto bad;
	}
	lims = json_object_get(*out, "limits");
	if (lims) {
		if (!json_is_object(lims) || tg_json_check_keys(lims, lk, "limits") < 0)
			goto bad;
		json_object_foreach(lims, k, v) {
			if (!json_is_integer(v) || json_integer_value(v) < 0)
				goto bad;
		}
	}
	return 0;
bad:
	json_decref(*out);
	*out = NULL;
	if (!tg_error_last()->code)
		tg_error_set(TG_ERR_INVALID, "bad entry");
	return tg_error_prefix("%s", REMOTES_FILE);
}

static int save(tg_registry *r, const json_t *doc)
{
	_cleanup_free_ char *path = tg_path_join(r->home, REMOTES_FILE);
	_cleanup_free_ char *text = tg_json_dump_pretty(doc);

	if (!path || !text)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return tg_file_write_atomic(path, text, strlen(text), 0600);
}

static int audit1(tg_registry *r, const tg_actor *who, const char *event, json_t *details)
{
	int rc;

	if (!details)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_begin(r)) < 0)
		goto out;
	if ((rc = reg_audit_append(r, who, event, NULL, details)) < 0) {
		reg_rollback(r);
		goto out;
	}
	rc = reg_commit(r);
out:
	json_decref(details);
	return rc;
}

int tg_registry_remote_add(tg_registry *r, const char *name, const char *url,
			   const tg_actor *who)
{
	_cleanup_json_ json_t *doc = NULL;
	json_t *rem;
	int rc;

	if (!tg_name_valid(name))
		return tg_error_set(TG_ERR_INVALID, "remote name %.64s: must match [a-z][a-z0-9_]{0,63}",
				    name);
	if ((rc = tg_store_check_url(url)) < 0 || (rc = load(&doc, r)) < 0)
		return rc;
	rem = json_object_get(doc, "remotes");
	if (json_object_get(rem, name))
		return tg_error_set(TG_ERR_EXISTS, "remote %s: already exists", name);
	if (json_object_set_new(rem, name, json_string(url)) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = save(r, doc)) < 0)
		return rc;
	return audit1(r, who, "remote_add", json_pack("{s:s, s:s}", "remote", name, "url", url));
}

int tg_registry_remote_remove(tg_registry *r, const char *name, const tg_actor *who)
{
	_cleanup_json_ json_t *doc = NULL;
	int rc;

	if ((rc = load(&doc, r)) < 0)
		return rc;
	if (json_object_del(json_object_get(doc, "remotes"), name) < 0)
		return tg_error_set(TG_ERR_NOTFOUND, "remote %.64s: no such remote", name);
	if ((rc = save(r, doc)) < 0)
		return rc;
	return audit1(r, who, "remote_remove", json_pack("{s:s}", "remote", name));
}

int tg_registry_remote_list(json_t **out, tg_registry *r)
{
	_cleanup_json_ json_t *doc = NULL, *arr = json_array();
	const char *k;
	json_t *v;
	int rc;

	*out = NULL;
	if (!arr)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = load(&doc, r)) < 0)
		return rc;
	json_object_foreach(json_object_get(doc, "remotes"), k, v)
		json_array_append_new(arr, json_pack("{s:s, s:O}", "name", k, "url", v));
	*out = TG_TAKE_PTR(arr);
	return 0;
}

int reg_remote_resolve(char **name_out, char **url_out, tg_store_fetch_limits *lim,
		       tg_registry *r, const char *name)
{
	_cleanup_json_ json_t *doc = NULL;
	json_t *rem, *url, *lims;
	int rc;

	*name_out = *url_out = NULL;
	if ((rc = load(&doc, r)) < 0)
		return rc;
	rem = json_object_get(doc, "remotes");
	if (!name) {
		if (json_object_get(rem, "origin"))
			name = "origin";
		else if (json_object_size(rem) == 1)
			name = json_object_iter_key(json_object_iter(rem));
		else
			return tg_error_set(TG_ERR_INVALID, "which remote? %s",
					    json_object_size(rem) ? "name one (toolgate remote list)"
								  : "none yet (toolgate remote add NAME URL)");
	}
	url = json_object_get(rem, name);
	if (!url)
		return tg_error_set(TG_ERR_NOTFOUND, "remote %.64s: no such remote", name);
	/* defaults: generous for tool histories, far below what hurts */
	lim->max_objects = 200000;
	lim->max_bytes = 256ull << 20;
	lim->max_refs = 100000;
	lim->max_versions = 2000;
	lims = json_object_get(doc, "limits");
	if (json_object_get(lims, "max_objects"))
		lim->max_objects = (uint64_t)json_integer_value(json_object_get(lims, "max_objects"));
	if (json_object_get(lims, "max_bytes"))
		lim->max_bytes = (uint64_t)json_integer_value(json_object_get(lims, "max_bytes"));
	if (json_object_get(lims, "max_refs"))
		lim->max_refs = (size_t)json_integer_value(json_object_get(lims, "max_refs"));
	if (json_object_get(lims, "max_versions"))
		lim->max_versions = (unsigned)json_integer_value(json_object_get(lims, "max_versions"));
	*name_out = strdup(name);
	*url_out = strdup(json_string_value(url));
	if (!*name_out || !*url_out) {
		free(*name_out);
		free(*url_out);
		*name_out = *url_out = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return 0;
}

int tg_registry_push(json_t **out, tg_registry *r, const char *remote, const tg_actor *who)
{
	_cleanup_free_ char *name = NULL, *url = NULL;
	tg_store_fetch_limits lim;
	tg_store *s;
	int rc, prc;

	*out = NULL;
	if ((rc = reg_remote_resolve(&name, &url, &lim, r, remote)) < 0)
		return rc;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	prc = tg_store_push(s, url);
	if (prc == TG_ERR_CONFLICT) {
		tg_error saved = *tg_error_last();
		(void)audit1(r, who, "push", json_pack("{s:s, s:s, s:b, s:s}", "remote", name, "url",
						       url, "ok", 0, "error", saved.message));
		return tg_error_set(TG_ERR_CONFLICT, "the remote %s has versions this host lacks: "
						     "pull first (%s)", name, saved.message);
	}
	if (prc < 0)
		return tg_error_prefix("push to %s", name);
	if ((rc = audit1(r, who, "push", json_pack("{s:s, s:s, s:b}", "remote", name, "url", url,
						   "ok", 1))) < 0)
		return rc;
	*out = json_pack("{s:s, s:s, s:b}", "remote", name, "url", url, "ok", 1);
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}
