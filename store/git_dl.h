/*
 * store/git_dl.h: libgit2, loaded on first use. toolgate links no libgit2:
 * with its dependencies (TLS, SSH, Kerberos, PCRE) it costs about 2 ms of
 * dynamic loading at every process start, which commands that never touch
 * the store (`sandbox exec`, a `call` whose registry is up to date) should not
 * pay. tg_git_load() dlopen()s it once per process; every git_* name used by
 * store/ then resolves through a table of pointers whose types come from
 * <git2.h> itself. store_internal.h includes this instead of <git2.h>.
 */
#ifndef TG_STORE_GIT_DL_H
#define TG_STORE_GIT_DL_H

#include <git2.h>

/* every libgit2 function store/ calls */
#define TG_GIT_FUNCTIONS(X) \
	X(git_blob_create_from_buffer) \
	X(git_blob_free) \
	X(git_blob_lookup) \
	X(git_blob_rawcontent) \
	X(git_blob_rawsize) \
	X(git_buf_dispose) \
	X(git_commit_create) \
	X(git_commit_free) \
	X(git_commit_header_field) \
	X(git_commit_id) \
	X(git_commit_lookup) \
	X(git_commit_message) \
	X(git_commit_nth_gen_ancestor) \
	X(git_commit_parent) \
	X(git_commit_parent_id) \
	X(git_commit_parentcount) \
	X(git_commit_time) \
	X(git_commit_tree) \
	X(git_config_free) \
	X(git_config_get_string_buf) \
	X(git_config_set_string) \
	X(git_diff_free) \
	X(git_diff_options_init) \
	X(git_diff_to_buf) \
	X(git_diff_tree_to_tree) \
	X(git_error_last) \
	X(git_error_set_str) \
	X(git_error_clear) \
	X(git_fetch_options_init) \
	X(git_graph_descendant_of) \
	X(git_libgit2_init) \
	X(git_libgit2_opts) \
	X(git_libgit2_shutdown) \
	X(git_object_free) \
	X(git_object_lookup) \
	X(git_odb_exists) \
	X(git_odb_free) \
	X(git_oid_cpy) \
	X(git_oid_equal) \
	X(git_oid_tostr) \
	X(git_oid_tostr_s) \
	X(git_push_options_init) \
	X(git_reference_create_matching) \
	X(git_reference_delete) \
	X(git_reference_free) \
	X(git_reference_iterator_free) \
	X(git_reference_iterator_glob_new) \
	X(git_reference_iterator_new) \
	X(git_reference_lookup) \
	X(git_reference_name) \
	X(git_reference_name_to_id) \
	X(git_reference_next) \
	X(git_reference_next_name) \
	X(git_reference_remove) \
	X(git_reference_resolve) \
	X(git_reference_target) \
	X(git_reference_type) \
	X(git_remote_connect) \
	X(git_remote_create_options_init) \
	X(git_remote_create_with_opts) \
	X(git_remote_disconnect) \
	X(git_remote_fetch) \
	X(git_remote_free) \
	X(git_remote_init_callbacks) \
	X(git_remote_ls) \
	X(git_remote_push) \
	X(git_repository_config) \
	X(git_repository_free) \
	X(git_repository_init_ext) \
	X(git_repository_init_options_init) \
	X(git_repository_is_bare) \
	X(git_refdb_compress) \
	X(git_refdb_free) \
	X(git_repository_odb) \
	X(git_repository_refdb) \
	X(git_repository_open_ext) \
	X(git_signature_free) \
	X(git_signature_now) \
	X(git_tree_entry_byindex) \
	X(git_tree_entry_byname) \
	X(git_tree_entry_id) \
	X(git_tree_entry_name) \
	X(git_tree_entry_type) \
	X(git_tree_entrycount) \
	X(git_tree_free) \
	X(git_tree_lookup) \
	X(git_treebuilder_free) \
	X(git_treebuilder_insert) \
	X(git_treebuilder_new) \
	X(git_treebuilder_write) \
	X(git_tree_entry_filemode) \
	X(git_odb_read_header) \
	X(git_odb_read) \
	X(git_odb_write) \
	X(git_odb_object_data) \
	X(git_odb_object_size) \
	X(git_odb_object_type) \
	X(git_odb_object_free) \
	X(git_merge_base) \
	X(git_oid_fromstr) \
	X(git_note_read) \
	X(git_note_foreach) \
	X(git_note_message) \
	X(git_note_free) \
	X(git_note_commit_create) \
	X(git_note_commit_read) \
	X(git_commit_author) \
	X(git_odb_foreach) \
	X(git_packbuilder_free) \
	X(git_packbuilder_insert) \
	X(git_packbuilder_insert_walk) \
	X(git_packbuilder_name) \
	X(git_packbuilder_new) \
	X(git_packbuilder_object_count) \
	X(git_odb_refresh) \
	X(git_packbuilder_set_threads) \
	X(git_packbuilder_write) \
	X(git_packbuilder_written) \
	X(git_revwalk_free) \
	X(git_revwalk_new) \
	X(git_revwalk_push_glob) \
	X(git_revwalk_push) \
	X(git_revwalk_hide) \
	X(git_revwalk_next) \
	X(git_commit_tree_id) \
	X(git_commit_create_buffer) \
	X(git_commit_create_with_signature) \
	X(git_commit_extract_signature) \
	X(git_patch_from_buffers) \
	X(git_patch_to_buf) \
	X(git_patch_free) \
	/* end */

struct tg_git_api {
#define TG_GIT_MEMBER(f) __typeof__(f) *f;
	TG_GIT_FUNCTIONS(TG_GIT_MEMBER)
#undef TG_GIT_MEMBER
};

extern struct tg_git_api tg_git_api;

/* 0 once libgit2 is loaded; TG_ERR_UNAVAILABLE naming the library and
 * dlerror() otherwise. Thread-safe, loads at most once. */
int tg_git_load(void);

#ifndef TG_GIT_DL_IMPL
#define git_odb_foreach (tg_git_api.git_odb_foreach)
#define git_patch_from_buffers (tg_git_api.git_patch_from_buffers)
#define git_patch_to_buf (tg_git_api.git_patch_to_buf)
#define git_patch_free (tg_git_api.git_patch_free)
#define git_packbuilder_free (tg_git_api.git_packbuilder_free)
#define git_packbuilder_insert (tg_git_api.git_packbuilder_insert)
#define git_packbuilder_insert_walk (tg_git_api.git_packbuilder_insert_walk)
#define git_packbuilder_name (tg_git_api.git_packbuilder_name)
#define git_packbuilder_new (tg_git_api.git_packbuilder_new)
#define git_packbuilder_object_count (tg_git_api.git_packbuilder_object_count)
#define git_odb_refresh (tg_git_api.git_odb_refresh)
#define git_packbuilder_set_threads (tg_git_api.git_packbuilder_set_threads)
#define git_packbuilder_write (tg_git_api.git_packbuilder_write)
#define git_packbuilder_written (tg_git_api.git_packbuilder_written)
#define git_revwalk_free (tg_git_api.git_revwalk_free)
#define git_revwalk_new (tg_git_api.git_revwalk_new)
#define git_revwalk_push_glob (tg_git_api.git_revwalk_push_glob)
#define git_revwalk_push (tg_git_api.git_revwalk_push)
#define git_revwalk_hide (tg_git_api.git_revwalk_hide)
#define git_revwalk_next (tg_git_api.git_revwalk_next)
#define git_commit_tree_id (tg_git_api.git_commit_tree_id)
#define git_blob_create_from_buffer (tg_git_api.git_blob_create_from_buffer)
#define git_blob_free (tg_git_api.git_blob_free)
#define git_commit_author (tg_git_api.git_commit_author)
#define git_commit_create_buffer (tg_git_api.git_commit_create_buffer)
#define git_commit_create_with_signature (tg_git_api.git_commit_create_with_signature)
#define git_commit_extract_signature (tg_git_api.git_commit_extract_signature)
#define git_note_free (tg_git_api.git_note_free)
#define git_note_message (tg_git_api.git_note_message)
#define git_note_read (tg_git_api.git_note_read)
#define git_note_foreach (tg_git_api.git_note_foreach)
#define git_note_commit_create (tg_git_api.git_note_commit_create)
#define git_note_commit_read (tg_git_api.git_note_commit_read)
#define git_oid_fromstr (tg_git_api.git_oid_fromstr)
#define git_merge_base (tg_git_api.git_merge_base)
#define git_odb_read_header (tg_git_api.git_odb_read_header)
#define git_odb_read (tg_git_api.git_odb_read)
#define git_odb_write (tg_git_api.git_odb_write)
#define git_odb_object_data (tg_git_api.git_odb_object_data)
#define git_odb_object_size (tg_git_api.git_odb_object_size)
#define git_odb_object_type (tg_git_api.git_odb_object_type)
#define git_odb_object_free (tg_git_api.git_odb_object_free)
#define git_tree_entry_filemode (tg_git_api.git_tree_entry_filemode)
#define git_blob_lookup (tg_git_api.git_blob_lookup)
#define git_blob_rawcontent (tg_git_api.git_blob_rawcontent)
#define git_blob_rawsize (tg_git_api.git_blob_rawsize)
#define git_buf_dispose (tg_git_api.git_buf_dispose)
#define git_commit_create (tg_git_api.git_commit_create)
#define git_commit_free (tg_git_api.git_commit_free)
#define git_commit_header_field (tg_git_api.git_commit_header_field)
#define git_commit_id (tg_git_api.git_commit_id)
#define git_commit_lookup (tg_git_api.git_commit_lookup)
#define git_commit_message (tg_git_api.git_commit_message)
#define git_commit_nth_gen_ancestor (tg_git_api.git_commit_nth_gen_ancestor)
#define git_commit_parent (tg_git_api.git_commit_parent)
#define git_commit_parent_id (tg_git_api.git_commit_parent_id)
#define git_commit_parentcount (tg_git_api.git_commit_parentcount)
#define git_commit_time (tg_git_api.git_commit_time)
#define git_commit_tree (tg_git_api.git_commit_tree)
#define git_config_free (tg_git_api.git_config_free)
#define git_config_get_string_buf (tg_git_api.git_config_get_string_buf)
#define git_config_set_string (tg_git_api.git_config_set_string)
#define git_diff_free (tg_git_api.git_diff_free)
#define git_diff_options_init (tg_git_api.git_diff_options_init)
#define git_diff_to_buf (tg_git_api.git_diff_to_buf)
#define git_diff_tree_to_tree (tg_git_api.git_diff_tree_to_tree)
#define git_error_last (tg_git_api.git_error_last)
#define git_error_set_str (tg_git_api.git_error_set_str)
#define git_error_clear (tg_git_api.git_error_clear)
#define git_fetch_options_init (tg_git_api.git_fetch_options_init)
#define git_graph_descendant_of (tg_git_api.git_graph_descendant_of)
#define git_libgit2_init (tg_git_api.git_libgit2_init)
#define git_libgit2_opts (tg_git_api.git_libgit2_opts)
#define git_libgit2_shutdown (tg_git_api.git_libgit2_shutdown)
#define git_object_free (tg_git_api.git_object_free)
#define git_object_lookup (tg_git_api.git_object_lookup)
#define git_odb_exists (tg_git_api.git_odb_exists)
#define git_odb_free (tg_git_api.git_odb_free)
#define git_oid_cpy (tg_git_api.git_oid_cpy)
#define git_oid_equal (tg_git_api.git_oid_equal)
#define git_oid_tostr (tg_git_api.git_oid_tostr)
#define git_oid_tostr_s (tg_git_api.git_oid_tostr_s)
#define git_push_options_init (tg_git_api.git_push_options_init)
#define git_reference_create_matching (tg_git_api.git_reference_create_matching)
#define git_reference_delete (tg_git_api.git_reference_delete)
#define git_reference_free (tg_git_api.git_reference_free)
#define git_reference_iterator_free (tg_git_api.git_reference_iterator_free)
#define git_reference_iterator_glob_new (tg_git_api.git_reference_iterator_glob_new)
#define git_reference_iterator_new (tg_git_api.git_reference_iterator_new)
#define git_reference_lookup (tg_git_api.git_reference_lookup)
#define git_reference_name (tg_git_api.git_reference_name)
#define git_reference_name_to_id (tg_git_api.git_reference_name_to_id)
#define git_reference_next (tg_git_api.git_reference_next)
#define git_reference_next_name (tg_git_api.git_reference_next_name)
#define git_reference_remove (tg_git_api.git_reference_remove)
#define git_reference_resolve (tg_git_api.git_reference_resolve)
#define git_reference_target (tg_git_api.git_reference_target)
#define git_reference_type (tg_git_api.git_reference_type)
#define git_remote_connect (tg_git_api.git_remote_connect)
#define git_remote_create_options_init (tg_git_api.git_remote_create_options_init)
#define git_remote_create_with_opts (tg_git_api.git_remote_create_with_opts)
#define git_remote_disconnect (tg_git_api.git_remote_disconnect)
#define git_remote_fetch (tg_git_api.git_remote_fetch)
#define git_remote_free (tg_git_api.git_remote_free)
#define git_remote_init_callbacks (tg_git_api.git_remote_init_callbacks)
#define git_remote_ls (tg_git_api.git_remote_ls)
#define git_remote_push (tg_git_api.git_remote_push)
#define git_repository_config (tg_git_api.git_repository_config)
#define git_repository_free (tg_git_api.git_repository_free)
#define git_repository_init_ext (tg_git_api.git_repository_init_ext)
#define git_repository_init_options_init (tg_git_api.git_repository_init_options_init)
#define git_repository_is_bare (tg_git_api.git_repository_is_bare)
#define git_refdb_compress (tg_git_api.git_refdb_compress)
#define git_refdb_free (tg_git_api.git_refdb_free)
#define git_repository_odb (tg_git_api.git_repository_odb)
#define git_repository_refdb (tg_git_api.git_repository_refdb)
#define git_repository_open_ext (tg_git_api.git_repository_open_ext)
#define git_signature_free (tg_git_api.git_signature_free)
#define git_signature_now (tg_git_api.git_signature_now)
#define git_tree_entry_byindex (tg_git_api.git_tree_entry_byindex)
#define git_tree_entry_byname (tg_git_api.git_tree_entry_byname)
#define git_tree_entry_id (tg_git_api.git_tree_entry_id)
#define git_tree_entry_name (tg_git_api.git_tree_entry_name)
#define git_tree_entry_type (tg_git_api.git_tree_entry_type)
#define git_tree_entrycount (tg_git_api.git_tree_entrycount)
#define git_tree_free (tg_git_api.git_tree_free)
#define git_tree_lookup (tg_git_api.git_tree_lookup)
#define git_treebuilder_free (tg_git_api.git_treebuilder_free)
#define git_treebuilder_insert (tg_git_api.git_treebuilder_insert)
#define git_treebuilder_new (tg_git_api.git_treebuilder_new)
#define git_treebuilder_write (tg_git_api.git_treebuilder_write)
#endif

#endif
