pub mod member;
