#include "cubin_code.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string_view>

namespace ktune::bench {
namespace {

template <class T>
T at(std::string_view s, std::size_t off) {
    if (off + sizeof(T) > s.size()) throw std::runtime_error("cubin: truncated ELF");
    T v;
    std::memcpy(&v, s.data() + off, sizeof v);
    return v;
}

struct section {
    std::uint32_t type = 0;
    std::string_view data; ///< empty for SHT_NOBITS
    std::uint64_t size = 0;
};

std::map<std::string, section, std::less<>> sections(std::string_view elf) {
    if (elf.size() < 64 ||
        elf.substr(0, 4) != "\x7f"
                            "ELF" ||
        elf[4] != 2)
        throw std::runtime_error("cubin: not an ELF64 file");
    const auto shoff = at<std::uint64_t>(elf, 0x28);
    const auto shentsize = at<std::uint16_t>(elf, 0x3a);
    const auto shnum = at<std::uint16_t>(elf, 0x3c);
    const auto shstrndx = at<std::uint16_t>(elf, 0x3e);
    const auto header = [&](std::size_t i) { return shoff + i * shentsize; };
    const auto names = at<std::uint64_t>(elf, header(shstrndx) + 0x18);
    std::map<std::string, section, std::less<>> out;
    for (std::size_t i = 0; i < shnum; ++i) {
        const auto h = header(i);
        section s;
        s.type = at<std::uint32_t>(elf, h + 4);
        const auto off = at<std::uint64_t>(elf, h + 0x18);
        s.size = at<std::uint64_t>(elf, h + 0x20);
        if (s.type != 8 /* SHT_NOBITS */) s.data = elf.substr(off, s.size);
        const auto name_off = names + at<std::uint32_t>(elf, h);
        out[std::string(elf.substr(name_off, elf.find('\0', name_off) - name_off))] = s;
    }
    return out;
}

/// EIATTR records (format byte, attribute byte, then a u16 value or a sized payload), each as
/// attr:payload; with `symbol` set, only the records about that symbol (payload's first u32),
/// the index itself left out; without it, PARAM_CBANK's symbol index (a section symbol) too.
std::string attributes(std::string_view info, const std::uint32_t* symbol) {
    std::string out;
    for (std::size_t i = 0; i + 2 <= info.size();) {
        const auto fmt = static_cast<unsigned char>(info[i]);
        const auto attr = static_cast<unsigned char>(info[i + 1]);
        std::string_view payload;
        if (fmt == 4) { // EIFMT_SVAL: u16 size + payload
            const auto n = at<std::uint16_t>(info, i + 2);
            payload = info.substr(i + 4, n);
            i += 4 + n;
        } else if (fmt == 3) { // EIFMT_HVAL: u16 value
            payload = info.substr(i + 2, 2);
            i += 4;
        } else {
            i += 2;
        }
        if (symbol) {
            if (fmt != 4 || payload.size() < 4 || at<std::uint32_t>(payload, 0) != *symbol)
                continue;
            payload.remove_prefix(4);
        } else if (attr == 0x0a && payload.size() >= 4) { // EIATTR_PARAM_CBANK
            payload.remove_prefix(4);
        }
        out += std::to_string(attr) + ":" + std::string(payload) + ";";
    }
    return out;
}

} // namespace

std::string kernel_code(const std::string& cubin, const std::string& name) {
    const auto secs = sections(cubin);
    const auto text = secs.find(".text." + name);
    if (text == secs.end()) throw std::runtime_error("cubin: no kernel " + name);
    std::string out = "text:" + std::string(text->second.data);
    for (const char* s : {".nv.shared.", ".nv.constant0."})
        if (const auto it = secs.find(s + name); it != secs.end())
            out += std::string("|") + s + std::to_string(it->second.size);
    if (const auto it = secs.find(".nv.info." + name); it != secs.end())
        out += "|info:" + attributes(it->second.data, nullptr);
    // The kernel's symbol (ELF64 symbols: 24 bytes, name offset first) in .symtab/.strtab.
    const auto symtab = secs.find(".symtab"), strtab = secs.find(".strtab");
    const auto global = secs.find(".nv.info");
    if (symtab != secs.end() && strtab != secs.end() && global != secs.end()) {
        const auto syms = symtab->second.data;
        const auto strs = strtab->second.data;
        for (std::uint32_t k = 0; k * 24 + 24 <= syms.size(); ++k) {
            const auto off = at<std::uint32_t>(syms, k * 24);
            if (strs.substr(off, strs.find('\0', off) - off) == name) {
                out += "|global:" + attributes(global->second.data, &k);
                break;
            }
        }
    }
    return out;
}

} // namespace ktune::bench
