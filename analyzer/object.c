/*
 * analyzer/object.c: tg_analyze_object(), the second check after the build:
 * a small, bounds-checked reader of ELF64 relocatable objects (no nm, no
 * libelf). Every undefined symbol must be on the allowlist (gcc's fortify
 * and isoc99 variants of allowed functions count as allowed); weak
 * undefined and GNU indirect symbols are refused, and so are constructor
 * and destructor sections (.init_array, .fini_array, .preinit_array,
 * .ctors, .dtors, .init, .fini) that would run code before main.
 */
#include "internal.h"

#include <elf.h>
#include <string.h>

#define TG_OBJECT_MAX (64u * 1024u * 1024u)

typedef struct obj {
	const unsigned char *d;
	size_t n;
	tg_flist *l;
	const tg_policy *p;
} obj;

static int range_ok(const obj *o, uint64_t off, uint64_t size)
{
	return off <= o->n && size <= o->n - off;
}

/* A NUL-terminated name inside the string section [off, off+size). */
static const char *str_at(const obj *o, const Elf64_Shdr *strsec, uint32_t idx)
{
	const char *s;
	if (!strsec || idx >= strsec->sh_size)
		return NULL;
	s = (const char *)o->d + strsec->sh_offset + idx;
	if (!memchr(s, 0, strsec->sh_size - idx))
		return NULL;
	return s;
}

static void shown(char *out, size_t sz, const char *s)
{
	size_t i;
	for (i = 0; s[i] && i + 1 < sz; i++)
		out[i] = (s[i] > 0x20 && s[i] < 0x7f) ? s[i] : '?';
	out[i] = 0;
}

static int init_name(const char *n)
{
	static const char *const names[] = { ".init_array", ".fini_array", ".preinit_array",
					     ".ctors", ".dtors", ".init", ".fini", NULL };
	size_t i, k;
	for (i = 0; names[i]; i++) {
		k = strlen(names[i]);
		if (strncmp(n, names[i], k) == 0 && (n[k] == 0 || n[k] == '.'))
			return 1;
	}
	/* relocation sections for them */
	if (strncmp(n, ".rela", 5) == 0)
		return init_name(n + 5);
	if (strncmp(n, ".rel", 4) == 0)
		return init_name(n + 4);
	return 0;
}

static void check_symbol(obj *o, const Elf64_Sym *s, const char *name)
{
	unsigned bind = ELF64_ST_BIND(s->st_info), type = ELF64_ST_TYPE(s->st_info);
	char nm[TG_SYMBOL_MAX + 1];

	shown(nm, sizeof(nm), name);
	if (type == STT_GNU_IFUNC) {
		tg_flist_add(o->l, o->p, "weak_symbol", 0, 0, nm, "%s is a GNU indirect function", nm);
		return;
	}
	if (bind == STB_GNU_UNIQUE)
		tg_flist_add(o->l, o->p, "weak_symbol", 0, 0, nm, "%s is a GNU unique symbol", nm);
	if (s->st_shndx != SHN_UNDEF && strcmp(name, "main") == 0 && type != STT_FUNC &&
	    bind != STB_LOCAL)
		tg_flist_add(o->l, o->p, "redefinition", 0, 0, nm, "main is not a function");
	if (s->st_shndx != SHN_UNDEF) {
		if (bind != STB_LOCAL && type != STT_SECTION && type != STT_FILE &&
		    strcmp(name, "main") != 0 &&
		    (name[0] == '_' || tg_policy_allows(o->p, name) || tg_symbol_category(name)))
			tg_flist_add(o->l, o->p, "redefinition", 0, 0, nm,
				     "the object defines %s, a library or reserved name", nm);
		if (bind == STB_WEAK)
			tg_flist_add(o->l, o->p, "weak_symbol", 0, 0, nm, "%s is a weak definition", nm);
		return;
	}
	if (!name[0])
		return;
	if (bind == STB_WEAK) {
		tg_flist_add(o->l, o->p, "weak_symbol", 0, 0, nm, "weak undefined symbol %s", nm);
		return;
	}
	if (strlen(name) > TG_SYMBOL_MAX) {
		tg_flist_add(o->l, o->p, "not_allowed", 0, 0, nm, "overlong undefined symbol");
		return;
	}
	/* the SDK's bridge I/O and tg_workspace_open (tg_symbol_sdk_io); the
	 * source check refused them in the tool's own code */
	if (!tg_policy_allows_linker(o->p, name) && !tg_symbol_sdk_io(name)) {
		const char *cat = tg_symbol_category(name);
		if (cat)
			tg_flist_add(o->l, o->p, cat, 0, 0, nm, "the object uses %s (%s)", nm, cat);
		else
			tg_flist_add(o->l, o->p, "not_allowed", 0, 0, nm,
				     "the object uses %s, which is not on the allowlist", nm);
	}
}

static int scan_object(obj *o)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *shstr;
	size_t i, nsym = 0;

	if (o->n < sizeof(Elf64_Ehdr))
		return tg_error_set(TG_ERR_INVALID, "not an ELF file (too short)");
	eh = (const Elf64_Ehdr *)o->d;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return tg_error_set(TG_ERR_INVALID, "not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return tg_error_set(TG_ERR_INVALID, "not a little-endian ELF64 file");
	if (eh->e_type != ET_REL)
		return tg_error_set(TG_ERR_INVALID, "not a relocatable object (ET_REL)");
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
	    eh->e_shstrndx >= eh->e_shnum || eh->e_shoff % 8 != 0 ||
	    !range_ok(o, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return tg_error_set(TG_ERR_INVALID, "malformed ELF section header table");
	sh = (const Elf64_Shdr *)(o->d + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_type != SHT_NULL &&
		    !range_ok(o, sh[i].sh_offset, sh[i].sh_size))
			return tg_error_set(TG_ERR_INVALID, "ELF section %zu lies outside the file", i);
	shstr = &sh[eh->e_shstrndx];
	if (shstr->sh_type != SHT_STRTAB)
		return tg_error_set(TG_ERR_INVALID, "malformed ELF section name table");
	for (i = 1; i < eh->e_shnum; i++) {
		const char *name = str_at(o, shstr, sh[i].sh_name);
		if (!name)
			return tg_error_set(TG_ERR_INVALID, "malformed ELF section name");
		if (sh[i].sh_type == SHT_INIT_ARRAY || sh[i].sh_type == SHT_FINI_ARRAY ||
		    sh[i].sh_type == SHT_PREINIT_ARRAY || init_name(name)) {
			char nm[64];
			shown(nm, sizeof(nm), name);
			tg_flist_add(o->l, o->p, "init_section", 0, 0, nm,
				     "the object has a %s section (code run before or after main)", nm);
		}
	}
	for (i = 1; i < eh->e_shnum; i++) {
		const Elf64_Shdr *st = &sh[i], *strs;
		const Elf64_Sym *syms;
		size_t k, n;
		if (st->sh_type != SHT_SYMTAB)
			continue;
		if (st->sh_entsize != sizeof(Elf64_Sym) || st->sh_size % sizeof(Elf64_Sym) ||
		    st->sh_offset % 8 || st->sh_link == 0 || st->sh_link >= eh->e_shnum ||
		    sh[st->sh_link].sh_type != SHT_STRTAB)
			return tg_error_set(TG_ERR_INVALID, "malformed ELF symbol table");
		strs = &sh[st->sh_link];
		syms = (const Elf64_Sym *)(o->d + st->sh_offset);
		n = st->sh_size / sizeof(Elf64_Sym);
		for (k = 1; k < n; k++) {
			const char *name = str_at(o, strs, syms[k].st_name);
			if (!name)
				return tg_error_set(TG_ERR_INVALID, "malformed ELF symbol name");
			check_symbol(o, &syms[k], name);
		}
		nsym++;
	}
	if (nsym != 1)
		return tg_error_set(TG_ERR_INVALID, "the object must have exactly one symbol table");
	return 0;
}

int tg_analyze_object(tg_report **out, const tg_policy *p, const char *path,
		      const tg_analyze_opts *opts)
{
	_cleanup_free_ char *data = NULL;
	tg_policy *own = NULL;
	tg_flist l = { 0 };
	uint64_t start = tg_now_ms();
	size_t len = 0;
	obj o;
	int r;

	(void)opts;
	*out = NULL;
	r = tg_file_read(&data, &len, path, TG_OBJECT_MAX);
	if (r < 0)
		return tg_error_prefix("%s", path);
	if (!p) {
		r = tg_policy_default(&own);
		if (r < 0)
			return r;
		p = own;
	}
	o.d = (const unsigned char *)data;
	o.n = len;
	o.l = &l;
	o.p = p;
	/* the buffer from tg_file_read is malloc'ed: aligned for the ELF structs */
	r = scan_object(&o);
	tg_policy_free(own);
	if (r < 0) {
		tg_flist_free(&l);
		return tg_error_prefix("%s", path);
	}
	return tg_flist_to_report(out, &l, tg_now_ms() - start);
}
