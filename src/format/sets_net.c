/* sets_net.c — socket flag and enum sets: address families, socket types, protocols,
 * send/recv flags, shutdown, socket option levels and the options of the common levels
 * (names and order as strace 6 prints them). */
#include "format/fmt_internal.h"

static const struct fmt_xval v_af[] = {
	{ 0, "AF_UNSPEC" }, { 1, "AF_UNIX" }, { 2, "AF_INET" }, { 3, "AF_AX25" }, { 4, "AF_IPX" },
	{ 5, "AF_APPLETALK" }, { 6, "AF_NETROM" }, { 7, "AF_BRIDGE" }, { 8, "AF_ATMPVC" },
	{ 9, "AF_X25" }, { 10, "AF_INET6" }, { 11, "AF_ROSE" }, { 12, "AF_DECnet" },
	{ 13, "AF_NETBEUI" }, { 14, "AF_SECURITY" }, { 15, "AF_KEY" }, { 16, "AF_NETLINK" },
	{ 17, "AF_PACKET" }, { 18, "AF_ASH" }, { 19, "AF_ECONET" }, { 20, "AF_ATMSVC" },
	{ 21, "AF_RDS" }, { 22, "AF_SNA" }, { 23, "AF_IRDA" }, { 24, "AF_PPPOX" },
	{ 25, "AF_WANPIPE" }, { 26, "AF_LLC" }, { 27, "AF_IB" }, { 28, "AF_MPLS" }, { 29, "AF_CAN" },
	{ 30, "AF_TIPC" }, { 31, "AF_BLUETOOTH" }, { 32, "AF_IUCV" }, { 33, "AF_RXRPC" },
	{ 34, "AF_ISDN" }, { 35, "AF_PHONET" }, { 36, "AF_IEEE802154" }, { 37, "AF_CAIF" },
	{ 38, "AF_ALG" }, { 39, "AF_NFC" }, { 40, "AF_VSOCK" }, { 41, "AF_KCM" },
	{ 42, "AF_QIPCRTR" }, { 43, "AF_SMC" }, { 44, "AF_XDP" }, { 45, "AF_MCTP" },
};

static const struct fmt_xval v_ipproto[] = {
	{ 0, "IPPROTO_IP" }, { 1, "IPPROTO_ICMP" }, { 2, "IPPROTO_IGMP" }, { 4, "IPPROTO_IPIP" },
	{ 6, "IPPROTO_TCP" }, { 8, "IPPROTO_EGP" }, { 12, "IPPROTO_PUP" }, { 17, "IPPROTO_UDP" },
	{ 22, "IPPROTO_IDP" }, { 29, "IPPROTO_TP" }, { 33, "IPPROTO_DCCP" }, { 41, "IPPROTO_IPV6" },
	{ 43, "IPPROTO_ROUTING" }, { 44, "IPPROTO_FRAGMENT" }, { 46, "IPPROTO_RSVP" },
	{ 47, "IPPROTO_GRE" }, { 50, "IPPROTO_ESP" }, { 51, "IPPROTO_AH" }, { 58, "IPPROTO_ICMPV6" },
	{ 59, "IPPROTO_NONE" }, { 60, "IPPROTO_DSTOPTS" }, { 92, "IPPROTO_MTP" },
	{ 94, "IPPROTO_BEETPH" }, { 98, "IPPROTO_ENCAP" }, { 103, "IPPROTO_PIM" },
	{ 108, "IPPROTO_COMP" }, { 115, "IPPROTO_L2TP" }, { 132, "IPPROTO_SCTP" },
	{ 135, "IPPROTO_MH" }, { 136, "IPPROTO_UDPLITE" }, { 137, "IPPROTO_MPLS" },
	{ 143, "IPPROTO_ETHERNET" }, { 255, "IPPROTO_RAW" }, { 262, "IPPROTO_MPTCP" },
};

static const struct fmt_xval v_netlink[] = {
	{ 0, "NETLINK_ROUTE" }, { 1, "NETLINK_UNUSED" }, { 2, "NETLINK_USERSOCK" },
	{ 3, "NETLINK_FIREWALL" }, { 4, "NETLINK_SOCK_DIAG" }, { 5, "NETLINK_NFLOG" },
	{ 6, "NETLINK_XFRM" }, { 7, "NETLINK_SELINUX" }, { 8, "NETLINK_ISCSI" },
	{ 9, "NETLINK_AUDIT" }, { 10, "NETLINK_FIB_LOOKUP" }, { 11, "NETLINK_CONNECTOR" },
	{ 12, "NETLINK_NETFILTER" }, { 13, "NETLINK_IP6_FW" }, { 14, "NETLINK_DNRTMSG" },
	{ 15, "NETLINK_KOBJECT_UEVENT" }, { 16, "NETLINK_GENERIC" }, { 18, "NETLINK_SCSITRANSPORT" },
	{ 19, "NETLINK_ECRYPTFS" }, { 20, "NETLINK_RDMA" }, { 21, "NETLINK_CRYPTO" },
	{ 22, "NETLINK_SMC" },
};

static const struct fmt_xval v_ethp[] = {
	{ 0x0003, "ETH_P_ALL" }, { 0x0800, "ETH_P_IP" }, { 0x0806, "ETH_P_ARP" },
	{ 0x86dd, "ETH_P_IPV6" }, { 0x8100, "ETH_P_8021Q" }, { 0x88a8, "ETH_P_8021AD" },
	{ 0x888e, "ETH_P_PAE" }, { 0x88cc, "ETH_P_LLDP" }, { 0x8035, "ETH_P_RARP" },
	{ 0x8847, "ETH_P_MPLS_UC" }, { 0x0004, "ETH_P_802_2" },
};

static const struct fmt_xval v_socktype[] = {
	{ 1, "SOCK_STREAM" }, { 2, "SOCK_DGRAM" }, { 3, "SOCK_RAW" }, { 4, "SOCK_RDM" },
	{ 5, "SOCK_SEQPACKET" }, { 6, "SOCK_DCCP" }, { 10, "SOCK_PACKET" },
};

static const struct fmt_xval v_sockflags[] = {
	{ 02000000, "SOCK_CLOEXEC" }, { 04000, "SOCK_NONBLOCK" },
};

static const struct fmt_xval v_msg[] = {
	{ 0x1, "MSG_OOB" }, { 0x2, "MSG_PEEK" }, { 0x4, "MSG_DONTROUTE" }, { 0x8, "MSG_CTRUNC" },
	{ 0x10, "MSG_PROBE" }, { 0x20, "MSG_TRUNC" }, { 0x40, "MSG_DONTWAIT" }, { 0x80, "MSG_EOR" },
	{ 0x100, "MSG_WAITALL" }, { 0x200, "MSG_FIN" }, { 0x400, "MSG_SYN" },
	{ 0x800, "MSG_CONFIRM" }, { 0x1000, "MSG_RST" }, { 0x2000, "MSG_ERRQUEUE" },
	{ 0x4000, "MSG_NOSIGNAL" }, { 0x8000, "MSG_MORE" }, { 0x10000, "MSG_WAITFORONE" },
	{ 0x20000, "MSG_SENDPAGE_NOTLAST" }, { 0x40000, "MSG_BATCH" },
	{ 0x80000, "MSG_NO_SHARED_FRAGS" }, { 0x4000000, "MSG_ZEROCOPY" },
	{ 0x20000000, "MSG_FASTOPEN" }, { 0x40000000, "MSG_CMSG_CLOEXEC" },
	{ 0x80000000, "MSG_CMSG_COMPAT" },
};

static const struct fmt_xval v_shutdown[] = {
	{ 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" },
};

static const struct fmt_xval v_sol[] = {
	{ 0, "SOL_IP" }, { 1, "SOL_SOCKET" }, { 6, "SOL_TCP" }, { 17, "SOL_UDP" }, { 41, "SOL_IPV6" },
	{ 58, "SOL_ICMPV6" }, { 132, "SOL_SCTP" }, { 136, "SOL_UDPLITE" }, { 255, "SOL_RAW" },
	{ 256, "SOL_IPX" }, { 257, "SOL_AX25" }, { 258, "SOL_ATALK" }, { 259, "SOL_NETROM" },
	{ 260, "SOL_ROSE" }, { 261, "SOL_DECNET" }, { 262, "SOL_X25" }, { 263, "SOL_PACKET" },
	{ 264, "SOL_ATM" }, { 265, "SOL_AAL" }, { 266, "SOL_IRDA" }, { 267, "SOL_NETBEUI" },
	{ 268, "SOL_LLC" }, { 269, "SOL_DCCP" }, { 270, "SOL_NETLINK" }, { 271, "SOL_TIPC" },
	{ 272, "SOL_RXRPC" }, { 273, "SOL_PPPOL2TP" }, { 274, "SOL_BLUETOOTH" },
	{ 275, "SOL_PNPIPE" }, { 276, "SOL_RDS" }, { 277, "SOL_IUCV" }, { 278, "SOL_CAIF" },
	{ 279, "SOL_ALG" }, { 280, "SOL_NFC" }, { 281, "SOL_KCM" }, { 282, "SOL_TLS" },
	{ 283, "SOL_XDP" },
};

static const struct fmt_xval v_so[] = {
	{ 1, "SO_DEBUG" }, { 2, "SO_REUSEADDR" }, { 3, "SO_TYPE" }, { 4, "SO_ERROR" },
	{ 5, "SO_DONTROUTE" }, { 6, "SO_BROADCAST" }, { 7, "SO_SNDBUF" }, { 8, "SO_RCVBUF" },
	{ 9, "SO_KEEPALIVE" }, { 10, "SO_OOBINLINE" }, { 11, "SO_NO_CHECK" }, { 12, "SO_PRIORITY" },
	{ 13, "SO_LINGER" }, { 14, "SO_BSDCOMPAT" }, { 15, "SO_REUSEPORT" }, { 16, "SO_PASSCRED" },
	{ 17, "SO_PEERCRED" }, { 18, "SO_RCVLOWAT" }, { 19, "SO_SNDLOWAT" },
	{ 20, "SO_RCVTIMEO_OLD" }, { 21, "SO_SNDTIMEO_OLD" }, { 22, "SO_SECURITY_AUTHENTICATION" },
	{ 23, "SO_SECURITY_ENCRYPTION_TRANSPORT" }, { 24, "SO_SECURITY_ENCRYPTION_NETWORK" },
	{ 25, "SO_BINDTODEVICE" }, { 26, "SO_ATTACH_FILTER" }, { 27, "SO_DETACH_FILTER" },
	{ 28, "SO_PEERNAME" }, { 29, "SO_TIMESTAMP_OLD" }, { 30, "SO_ACCEPTCONN" },
	{ 31, "SO_PEERSEC" }, { 32, "SO_SNDBUFFORCE" }, { 33, "SO_RCVBUFFORCE" },
	{ 34, "SO_PASSSEC" }, { 35, "SO_TIMESTAMPNS_OLD" }, { 36, "SO_MARK" },
	{ 37, "SO_TIMESTAMPING_OLD" }, { 38, "SO_PROTOCOL" }, { 39, "SO_DOMAIN" },
	{ 40, "SO_RXQ_OVFL" }, { 41, "SO_WIFI_STATUS" }, { 42, "SO_PEEK_OFF" }, { 43, "SO_NOFCS" },
	{ 44, "SO_LOCK_FILTER" }, { 45, "SO_SELECT_ERR_QUEUE" }, { 46, "SO_BUSY_POLL" },
	{ 47, "SO_MAX_PACING_RATE" }, { 48, "SO_BPF_EXTENSIONS" }, { 49, "SO_INCOMING_CPU" },
	{ 50, "SO_ATTACH_BPF" }, { 51, "SO_ATTACH_REUSEPORT_CBPF" },
	{ 52, "SO_ATTACH_REUSEPORT_EBPF" }, { 53, "SO_CNX_ADVICE" }, { 55, "SO_MEMINFO" },
	{ 56, "SO_INCOMING_NAPI_ID" }, { 57, "SO_COOKIE" }, { 59, "SO_PEERGROUPS" },
	{ 60, "SO_ZEROCOPY" }, { 61, "SO_TXTIME" }, { 62, "SO_BINDTOIFINDEX" },
	{ 63, "SO_TIMESTAMP_NEW" }, { 64, "SO_TIMESTAMPNS_NEW" }, { 65, "SO_TIMESTAMPING_NEW" },
	{ 66, "SO_RCVTIMEO_NEW" }, { 67, "SO_SNDTIMEO_NEW" }, { 68, "SO_DETACH_REUSEPORT_BPF" },
	{ 69, "SO_PREFER_BUSY_POLL" },
};

static const struct fmt_xval v_tcp[] = {
	{ 1, "TCP_NODELAY" }, { 2, "TCP_MAXSEG" }, { 3, "TCP_CORK" }, { 4, "TCP_KEEPIDLE" },
	{ 5, "TCP_KEEPINTVL" }, { 6, "TCP_KEEPCNT" }, { 7, "TCP_SYNCNT" }, { 8, "TCP_LINGER2" },
	{ 9, "TCP_DEFER_ACCEPT" }, { 10, "TCP_WINDOW_CLAMP" }, { 11, "TCP_INFO" },
	{ 12, "TCP_QUICKACK" }, { 13, "TCP_CONGESTION" }, { 14, "TCP_MD5SIG" },
	{ 15, "TCP_COOKIE_TRANSACTIONS" }, { 16, "TCP_THIN_LINEAR_TIMEOUTS" },
	{ 17, "TCP_THIN_DUPACK" }, { 18, "TCP_USER_TIMEOUT" }, { 19, "TCP_REPAIR" },
	{ 20, "TCP_REPAIR_QUEUE" }, { 21, "TCP_QUEUE_SEQ" }, { 22, "TCP_REPAIR_OPTIONS" },
	{ 23, "TCP_FASTOPEN" }, { 24, "TCP_TIMESTAMP" }, { 25, "TCP_NOTSENT_LOWAT" },
	{ 26, "TCP_CC_INFO" }, { 27, "TCP_SAVE_SYN" }, { 28, "TCP_SAVED_SYN" },
	{ 29, "TCP_REPAIR_WINDOW" }, { 30, "TCP_FASTOPEN_CONNECT" }, { 31, "TCP_ULP" },
	{ 32, "TCP_MD5SIG_EXT" }, { 33, "TCP_FASTOPEN_KEY" }, { 34, "TCP_FASTOPEN_NO_COOKIE" },
	{ 35, "TCP_ZEROCOPY_RECEIVE" }, { 36, "TCP_INQ" }, { 37, "TCP_TX_DELAY" },
};

static const struct fmt_xval v_ip[] = {
	{ 1, "IP_TOS" }, { 2, "IP_TTL" }, { 3, "IP_HDRINCL" }, { 4, "IP_OPTIONS" },
	{ 5, "IP_ROUTER_ALERT" }, { 6, "IP_RECVOPTS" }, { 7, "IP_RETOPTS" }, { 8, "IP_PKTINFO" },
	{ 9, "IP_PKTOPTIONS" }, { 10, "IP_MTU_DISCOVER" }, { 11, "IP_RECVERR" }, { 12, "IP_RECVTTL" },
	{ 13, "IP_RECVTOS" }, { 14, "IP_MTU" }, { 15, "IP_FREEBIND" }, { 16, "IP_IPSEC_POLICY" },
	{ 17, "IP_XFRM_POLICY" }, { 18, "IP_PASSSEC" }, { 19, "IP_TRANSPARENT" },
	{ 20, "IP_ORIGDSTADDR" }, { 21, "IP_MINTTL" }, { 22, "IP_NODEFRAG" }, { 23, "IP_CHECKSUM" },
	{ 24, "IP_BIND_ADDRESS_NO_PORT" }, { 25, "IP_RECVFRAGSIZE" }, { 26, "IP_RECVERR_RFC4884" },
	{ 32, "IP_MULTICAST_IF" }, { 33, "IP_MULTICAST_TTL" }, { 34, "IP_MULTICAST_LOOP" },
	{ 35, "IP_ADD_MEMBERSHIP" }, { 36, "IP_DROP_MEMBERSHIP" }, { 37, "IP_UNBLOCK_SOURCE" },
	{ 38, "IP_BLOCK_SOURCE" }, { 39, "IP_ADD_SOURCE_MEMBERSHIP" },
	{ 40, "IP_DROP_SOURCE_MEMBERSHIP" }, { 41, "IP_MSFILTER" }, { 42, "MCAST_JOIN_GROUP" },
	{ 43, "MCAST_BLOCK_SOURCE" }, { 44, "MCAST_UNBLOCK_SOURCE" }, { 45, "MCAST_LEAVE_GROUP" },
	{ 46, "MCAST_JOIN_SOURCE_GROUP" }, { 47, "MCAST_LEAVE_SOURCE_GROUP" },
	{ 48, "MCAST_MSFILTER" }, { 49, "IP_MULTICAST_ALL" },
};

static const struct fmt_xval v_ipv6[] = {
	{ 1, "IPV6_ADDRFORM" }, { 2, "IPV6_2292PKTINFO" }, { 3, "IPV6_2292HOPOPTS" },
	{ 4, "IPV6_2292DSTOPTS" }, { 5, "IPV6_2292RTHDR" }, { 6, "IPV6_2292PKTOPTIONS" },
	{ 7, "IPV6_CHECKSUM" }, { 8, "IPV6_2292HOPLIMIT" }, { 9, "IPV6_NEXTHOP" },
	{ 10, "IPV6_AUTHHDR" }, { 11, "IPV6_FLOWINFO" }, { 16, "IPV6_UNICAST_HOPS" },
	{ 17, "IPV6_MULTICAST_IF" }, { 18, "IPV6_MULTICAST_HOPS" }, { 19, "IPV6_MULTICAST_LOOP" },
	{ 20, "IPV6_ADD_MEMBERSHIP" }, { 21, "IPV6_DROP_MEMBERSHIP" }, { 22, "IPV6_ROUTER_ALERT" },
	{ 23, "IPV6_MTU_DISCOVER" }, { 24, "IPV6_MTU" }, { 25, "IPV6_RECVERR" },
	{ 26, "IPV6_V6ONLY" }, { 27, "IPV6_JOIN_ANYCAST" }, { 28, "IPV6_LEAVE_ANYCAST" },
	{ 29, "IPV6_MULTICAST_ALL" }, { 30, "IPV6_ROUTER_ALERT_ISOLATE" },
	{ 31, "IPV6_RECVERR_RFC4884" }, { 32, "IPV6_FLOWLABEL_MGR" }, { 33, "IPV6_FLOWINFO_SEND" },
	{ 34, "IPV6_IPSEC_POLICY" }, { 35, "IPV6_XFRM_POLICY" }, { 36, "IPV6_HDRINCL" },
	{ 42, "MCAST_JOIN_GROUP" }, { 43, "MCAST_BLOCK_SOURCE" }, { 44, "MCAST_UNBLOCK_SOURCE" },
	{ 45, "MCAST_LEAVE_GROUP" }, { 46, "MCAST_JOIN_SOURCE_GROUP" },
	{ 47, "MCAST_LEAVE_SOURCE_GROUP" }, { 48, "MCAST_MSFILTER" }, { 49, "IPV6_RECVPKTINFO" },
	{ 50, "IPV6_PKTINFO" }, { 51, "IPV6_RECVHOPLIMIT" }, { 52, "IPV6_HOPLIMIT" },
	{ 53, "IPV6_RECVHOPOPTS" }, { 54, "IPV6_HOPOPTS" }, { 55, "IPV6_RTHDRDSTOPTS" },
	{ 56, "IPV6_RECVRTHDR" }, { 57, "IPV6_RTHDR" }, { 58, "IPV6_RECVDSTOPTS" },
	{ 59, "IPV6_DSTOPTS" }, { 60, "IPV6_RECVPATHMTU" }, { 61, "IPV6_PATHMTU" },
	{ 62, "IPV6_DONTFRAG" }, { 63, "IPV6_USE_MIN_MTU" }, { 64, "IP6T_SO_SET_REPLACE" },
	{ 65, "IP6T_SO_SET_ADD_COUNTERS" }, { 66, "IPV6_RECVTCLASS" }, { 67, "IPV6_TCLASS" },
	{ 70, "IPV6_AUTOFLOWLABEL" }, { 72, "IPV6_ADDR_PREFERENCES" }, { 73, "IPV6_MINHOPCOUNT" },
	{ 74, "IPV6_ORIGDSTADDR" }, { 75, "IPV6_TRANSPARENT" }, { 76, "IPV6_UNICAST_IF" },
	{ 77, "IPV6_RECVFRAGSIZE" }, { 78, "IPV6_FREEBIND" },
};

static const struct fmt_xval v_udp[] = {
	{ 1, "UDP_CORK" }, { 100, "UDP_ENCAP" }, { 101, "UDP_NO_CHECK6_TX" },
	{ 102, "UDP_NO_CHECK6_RX" }, { 103, "UDP_SEGMENT" }, { 104, "UDP_GRO" },
};

static const struct fmt_xval v_nlopt[] = {
	{ 1, "NETLINK_ADD_MEMBERSHIP" }, { 2, "NETLINK_DROP_MEMBERSHIP" }, { 3, "NETLINK_PKTINFO" },
	{ 4, "NETLINK_BROADCAST_ERROR" }, { 5, "NETLINK_NO_ENOBUFS" }, { 6, "NETLINK_RX_RING" },
	{ 7, "NETLINK_TX_RING" }, { 8, "NETLINK_LISTEN_ALL_NSID" },
	{ 9, "NETLINK_LIST_MEMBERSHIPS" }, { 10, "NETLINK_CAP_ACK" }, { 11, "NETLINK_EXT_ACK" },
	{ 12, "NETLINK_GET_STRICT_CHK" },
};

static const struct fmt_xval v_packetopt[] = {
	{ 1, "PACKET_ADD_MEMBERSHIP" }, { 2, "PACKET_DROP_MEMBERSHIP" }, { 3, "PACKET_RECV_OUTPUT" },
	{ 5, "PACKET_RX_RING" }, { 6, "PACKET_STATISTICS" }, { 7, "PACKET_COPY_THRESH" },
	{ 8, "PACKET_AUXDATA" }, { 9, "PACKET_ORIGDEV" }, { 10, "PACKET_VERSION" },
	{ 11, "PACKET_HDRLEN" }, { 12, "PACKET_RESERVE" }, { 13, "PACKET_TX_RING" },
	{ 14, "PACKET_LOSS" }, { 15, "PACKET_VNET_HDR" }, { 16, "PACKET_TX_TIMESTAMP" },
	{ 17, "PACKET_TIMESTAMP" }, { 18, "PACKET_FANOUT" }, { 19, "PACKET_TX_HAS_OFF" },
	{ 20, "PACKET_QDISC_BYPASS" }, { 21, "PACKET_ROLLOVER_STATS" }, { 22, "PACKET_FANOUT_DATA" },
	{ 23, "PACKET_IGNORE_OUTGOING" },
};

#define ENUM(n, t, u) { .name = n, .is_enum = true, .vals = XV(t), .unknown = u }
#define FLAGS(n, t, u) { .name = n, .vals = XV(t), .unknown = u }

const struct fmt_set fmt_sets_net[] = {
	ENUM("af", v_af, "AF_???"),
	{ .name = "sock_type", .vals = XV(v_sockflags), .unknown = "SOCK_???", .field = FLD_ENUM_FRESH,
	  .field_mask = 0xf, .fvals = XV(v_socktype) },
	FLAGS("sock_flags", v_sockflags, "SOCK_???"),
	ENUM("ipproto", v_ipproto, "IPPROTO_???"),
	ENUM("netlink_proto", v_netlink, "NETLINK_???"),
	ENUM("ethp", v_ethp, "ETH_P_???"),
	FLAGS("msg", v_msg, "MSG_???"),
	ENUM("shutdown", v_shutdown, "SHUT_???"),
	ENUM("sol", v_sol, "SOL_??"),
	ENUM("sockopt_socket", v_so, "SO_???"),
	ENUM("sockopt_tcp", v_tcp, "TCP_???"),
	ENUM("sockopt_ip", v_ip, "IP_???"),
	ENUM("sockopt_ipv6", v_ipv6, "IPV6_???"),
	ENUM("sockopt_udp", v_udp, "UDP_???"),
	ENUM("sockopt_netlink", v_nlopt, "NETLINK_???"),
	ENUM("sockopt_packet", v_packetopt, "PACKET_???"),
	/* resolved against another argument by scry_fmt_arg (arg.c); alone: a number */
	{ .name = "sockproto", .is_enum = true },
	{ .name = "sockopt", .is_enum = true },
};
const size_t fmt_sets_net_len = sizeof(fmt_sets_net) / sizeof(fmt_sets_net[0]);
