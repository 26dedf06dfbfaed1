// The congestion control of TCP peer connections that stay on this host.
//
// A connection whose two ends have the same IP address never leaves the
// host: the kernel carries it over the loopback device, where there is no
// network to share and nothing to be fair to. A pacing algorithm still
// paces it. Linux's BBR (the system default on some hosts, this project's
// CI machine among them) sends each flow at the bandwidth it estimated
// from the flow's first round trips; over loopback that estimate lands low
// in about half of the jobs, and those run their 256 KiB-1 MiB exchanges up
// to twice as slowly for their whole life (docs/results/2026-12-03-collective-set.md,
// "Congestion control"). So such a connection gets a window-based
// algorithm, which on a link without loss only grows its window: cubic
// where this process may choose it, else reno (every process may). This is
// done only where the system gave the socket a pacing algorithm (BBR);
// connections between hosts always keep the system's choice.
#pragma once

#include <netinet/in.h>

#include <string>

namespace rcoll::transport::tcp {

// True when the two ends of a connection have the same address (it stays on
// this host). Pure, for tests.
bool stays_on_host(const sockaddr_in& local, const sockaddr_in& peer) noexcept;

// True for the algorithms that pace a flow at an estimated rate ("bbr", and
// its variants named "bbr..."). Pure, for tests.
bool paces(const std::string& algorithm) noexcept;

// The congestion control algorithm of a TCP socket ("" if it cannot be read).
std::string congestion_control_of(int fd);

// Applies the rule above to a connected TCP socket. Returns what it did,
// for the debug log ("kept bbr (to another host)", "reno instead of bbr
// (stays on this host)", ...). Never fails: a socket whose algorithm cannot
// be changed keeps the one it has.
std::string choose_congestion_control(int fd);

}  // namespace rcoll::transport::tcp
